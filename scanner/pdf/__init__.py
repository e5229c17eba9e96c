"""PDF sheets: the text layer and form fields, one module per layout."""
