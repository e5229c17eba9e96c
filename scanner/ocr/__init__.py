"""Photos and scans: page, grid, rows, names, counts, marks; the only Tesseract caller."""
