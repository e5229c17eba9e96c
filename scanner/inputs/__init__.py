"""Input formats below the sheet readers: sniffing, ydk/ydke/text/JSON, read options, resolving lines to cards."""
