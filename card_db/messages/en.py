"""English texts of every error code (the CLI's default language)."""

MESSAGES: dict[str, str] = {
    # fallbacks: an error raised with a free-text message, shown in another language
    "error.refused": "the request was refused",
    "carddb.unusable": "the card database cannot be used",
    "regulation.unusable": "the limit list cannot be used",
    "fetch.failed": "the card data download failed",
    "input.unreadable": "the file cannot be read",
    "event.refused": "the event record refused the request",
    "tool.missing": "a program decksheet needs is not installed",
    # inputs
    "input.no-such-file": "no such file: {file}",
    "input.is-folder": "{file} is a folder, not a file",
    "input.not-regular": "{file} is not a regular file",
    "input.cannot-open": "cannot open {file}: {reason}",
    "input.too-large": "{file} is too large (at most {max_mb} MB)",
    "input.terminal": "{file} is a terminal: give a file, or pipe the decklist in",
    "input.pipe-idle": "{file}: nothing arrived for {seconds} s; gave up waiting",
    "input.count-too-large": "{where}: a count of {count} is not a deck (at most {max} copies "
                             "on one line)",
    "input.too-many-card-lines": "more than {max} card lines: not one decklist",
    "input.too-many-pixels": "{file} is too large ({width}×{height} pixels; at most {max_mp} "
                             "megapixels)",
    "input.too-many-pages": "{file} has {count} pages; at most {max}: split it into one file "
                            "per sheet",
    "input.pdf-stream-too-large": "{file}: a compressed part of the PDF unpacks to more than "
                                  "{max_mb} MB; not a deck sheet",
    "input.empty": "the file is empty",
    "input.unknown-binary": "not a deck sheet or decklist: binary data of an unknown kind",
    "input.cannot-read": "cannot read {file}: {reason}",
    "input.file-empty": "{file} is empty",
    "input.image-corrupt": "{file} is not a readable image (corrupt or unsupported format)",
    "input.image-too-small": "{file} is too small to be a sheet ({width}×{height})",
    "input.image-bomb": "{file} is too large (its header claims more pixels than any photo has)",
    "input.no-sheet-on-pages": "{file}: not a deck sheet on any of its first {pages} pages",
    "input.no-grid": "{file}: not a deck sheet (no deck table grid found)",
    "input.pdf-no-pages": "{file}: the PDF has no pages",
    "input.pdf-page-unrenderable": "{file}: the PDF page cannot be rendered ({detail})",
    "input.pdf-password": "{file}: the PDF is password-protected",
    "input.pdf-damaged": "{file}: not a readable PDF (damaged or truncated: {detail})",
    "input.pdf-page-unreadable": "{file}: page {page} cannot be read ({detail})",
    "input.sheet-blank": "{file}: the deck sheet is blank (no card names or counts on page {page})",
    "input.pdf-not-a-sheet": "{file}: not a deck sheet (no 몬스터/마법/함정 column headers and no "
                             "form fields found)",
    "input.text-too-large": "the decklist text is too large (at most {max_mb} MB)",
    "input.text-too-many-lines": "the decklist has more than {max} lines: not one decklist",
    "input.ydke-too-long": "the ydke:// URL is too long",
    "input.text-bad-mark": "text with a {codec} mark that does not decode",
    "input.no-card-line": "no line of {file} is a card: not a decklist; nothing registered",
    "input.changed-while-read": "{file} changed while it was being read; register it again",
    "input.worker-died": "the process reading {file} stopped (past its {max_mb} MB memory "
                         "bound, or the reader crashed); not read",
    "input.worker-memory": "reading {file} needed more than {max_mb} MB of memory; not read",
    "format.ydk-empty": "not a .ydk deck: no #main/#extra/!side section and no passcodes",
    "format.not-ydke": "not a ydke:// URL",
    "format.ydke-parts": "malformed ydke:// URL: expected ydke://MAIN!EXTRA!SIDE!",
    "format.ydke-base64": "malformed ydke:// URL: the {section} part is not base64",
    "format.ydke-passcodes": "malformed ydke:// URL: the {section} part is not whole passcodes",
    "format.text-no-cards": "no card lines found in the text list",
    "format.json-number": "not valid JSON: {name} is not a number JSON allows",
    "format.json-invalid": "not valid JSON: {detail} at line {line}",
    "format.json-deep": "not a decksheet JSON decklist: nested too deeply",
    "format.json-many": "the JSON holds {count} decklists; give one",
    "format.json-no-sections": "not a decksheet JSON decklist: no 'sections' object",
    "format.json-unknown-section": "JSON sections: unknown section {section} (expected main, "
                                   "extra, side)",
    "format.json-field-type": "{where} is not {kind}",
    "format.json-passcode": "{where}: {cid} is not a passcode",
    "format.json-review-section": "review item section {section} is not main, extra or side",
    # the event
    "event.name-too-long": "player name longer than {max} characters",
    "event.walk-in-with-id": "a walk-in has no Konami ID: give --walk-in or --player, not both",
    "event.no-player-id": "no Konami ID given and none read with confidence on the sheet: give "
                          "--player KONAMI_ID (or --walk-in)",
    "event.duplicate-original": "this file is already registered for {count} other player(s) "
                                "({players}); two players never hand in one original — give "
                                "--allow-duplicate if this is really meant",
    "event.implausible-version": "version {version} of {player} does not look like their deck "
                                 "({why}): give --replace to make it their current list anyway",
    "doubt.small-main": "its main deck has {cards} cards",
    "doubt.unreadable": "{unreadable} of its {lines} lines are unreadable or unsure",
    "doubt.drops-previous": "it keeps only {kept} of the {total} cards of the previous version",
    "warn.sheet-name-cut": "the name on the sheet is longer than {max} characters: kept in part",
    "regulation.no-list-file": "no limit list file: give --lflist PATH, set DECKSHEET_LFLIST or "
                               "run 'decksheet db fetch'",
    "event.round-not-a-number": "round must be a whole number, not {value}",
    "event.round-out-of-range": "round must be from 0 to {max}, not {value}",
    "event.judge-needed": "this is recorded in the judge's name: give --judge NAME (or set "
                          "DECKSHEET_JUDGE)",
    "event.no-registration": "player {player} has no registered decklist in this event "
                             "(register it first with 'decksheet register')",
    "event.no-version": "player {player} has no registration version {version} in this event",
    "event.void-needs-reason": "a void or amendment needs a reason (--reason)",
    "event.unknown-penalty": "unknown penalty {penalty}: one of {known}",
    "event.no-infraction": "no recorded infraction {id} in this event",
    "event.already-void": "infraction {id} is already void",
    "event.ambiguous-player": "{count} players match {who}: give the Konami ID ({players})",
    "event.no-player": "no player {who} in this event",
    "deckcheck.line-no-card": "{place} ({read}) names no card: write the card in the observed "
                              "list, then confirm",
    "deckcheck.line-no-count": "{place} ({read}) has no usable count: correct it in the observed "
                               "list, then confirm",
    "review.unknown-action": "unknown review action {action} (keep, choose or skip)",
    "review.no-sheet-item": "no sheet-level item to review in {section}",
    "review.restore-only-struck": "only a struck-through row can be restored",
    "review.restore-needs-card": "restoring a struck row needs a card of the database and a count "
                                 "of 1 to 3",
    "review.no-line": "no line {line} in the {section} section",
    "review.unknown-card": "choose needs a card of the database (card_id {card_id})",
    "review.bad-count": "a count is 1 to 3, not {count}",
    "review.keep-no-card": "{place} names no card: choose one",
    "review.keep-bad-count": "{place}: count {count} cannot be kept; choose the card with a count "
                             "of 1 to 3",
    "event.id-wrong-length": "not a Konami card game ID: {raw} has {digits} digits, an ID has "
                             "{need} (a player without one: register with --walk-in)",
    "event.not-an-id": "not a Konami card game ID: {raw} (10 digits, e.g. 0123456789; a player "
                       "without one: register with --walk-in)",
    "event.not-an-id-lookup": "not a Konami card game ID: {raw} (10 digits, e.g. 0123456789)",
    "event.read-only": "{path} is open read-only",
    "event.file-missing": "original file {sha}… is not in {folder}",
    "event.no-id": "a registration needs a Konami ID (or a walk-in number)",
    # the station's check-in
    "station.no-sheet-id": "no Konami ID read on the sheet: pick the player and upload again",
    "station.sheet-id-unsure": "the sheet's Konami ID ({sheet_id}) is not certain: pick the "
                               "player and upload again",
    "station.sheet-id-not-on-roster": "the sheet's Konami ID {sheet_id} is not on the roster: "
                                      "pick the player and upload again",
    "station.discarded": "not stored: the judge chose not to keep it",
    "station.worker-died": "the reading process stopped (the file is too large or damaged)",
    "station.read-timeout": "the reading took too long and was stopped (check the sheet)",
    "station.read-error": "error while reading: {kind}",
    # tools
    "tool.no-tesseract": "Tesseract OCR is not installed (apt-get install tesseract-ocr "
                         "tesseract-ocr-kor)",
    "tool.no-kor": "Tesseract's Korean model 'kor' is not installed (apt-get install "
                   "tesseract-ocr-kor)",
    "tool.no-font": "no Korean font is installed for the rendering check (apt-get install "
                    "fonts-nanum)",
}
