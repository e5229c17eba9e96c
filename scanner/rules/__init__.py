"""The tournament rules: codes with penalties and quotes, the deck check, the comparison of two lists."""
