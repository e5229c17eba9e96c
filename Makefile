# decksheet: `make demo` sets everything up and runs the main job on the shipped samples;
# `make test` sets everything up and runs the tests. Both work on a fresh Debian 12 machine.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
APT_PACKAGES := tesseract-ocr tesseract-ocr-kor tesseract-ocr-eng fonts-nanum fonts-nanum-extra \
                fontconfig fonts-unfonts-core fonts-baekmuk fonts-liberation2 fonts-crosextra-carlito \
                fonts-alee fonts-dkg-handwriting fonts-woowa-bm fonts-unfonts-extra fonts-dejavu-core fonts-humor-sans \
                poppler-utils python3-venv python3-pip \
                chromium chromium-driver postgresql
SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
OUT  ?= out/demo

.PHONY: setup system demo test test-fast bench clean

# System packages (Tesseract with the Korean model, Nanum fonts and other Korean print fonts the
# rendering check may meet on a sheet, a handwriting face the hand-filled-form test writes in
# (fonts-alee: Eunjin Nakseo, never tuned on; fonts-woowa-bm and fonts-unfonts-extra: the hands
# written card names are drawn in, and two held-out faces; fonts-humor-sans: the digits of a tuning
# face, bench/bench_hand.py's tuning sets), poppler, Chromium); skipped when present.
system:
	@missing=$$(for p in $(APT_PACKAGES); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done); \
	if [ -n "$$missing" ]; then \
	  echo "installing system packages:" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  DEBIAN_FRONTEND=noninteractive $(SUDO) apt-get install -y -qq --no-install-recommends $$missing; \
	fi

$(BIN)/decksheet: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/python -m pip install -q -e '.[test]'
	@touch $@

setup: system $(BIN)/decksheet

# The main job on the shipped samples, with the shipped demo card database.
demo: setup
	@mkdir -p $(OUT)
	$(BIN)/decksheet db info
	$(BIN)/decksheet scan samples/sheets/*.pdf --out $(OUT)
	@echo "== a phone photo of a printed sheet corrected by pen (OCR; flagged lines, crops in $(OUT)/crops)"
	$(BIN)/decksheet scan samples/photos/photo-corrected-02.jpg --crops $(OUT)/crops --out $(OUT)
	@$(BIN)/decksheet check samples/decks/illegal.txt; echo "(exit status $$?: 1 = infractions found)"
	@$(BIN)/decksheet compare samples/decks/registered.ydk samples/decks/observed.ydk; echo "(exit status $$?: 1 = mismatch)"
	@echo "JSON of every sample sheet is in $(OUT)/"
	@echo "== an event: check-in, a deck check, the audit"
	@rm -rf $(OUT)/event.sqlite* $(OUT)/audit
	$(BIN)/decksheet event init $(OUT)/event.sqlite --name "데모 대회" --date 2026-07-12
	$(BIN)/decksheet register samples/sheets/db-blue-eyes-gothic.pdf --player 0412345678 --event $(OUT)/event.sqlite
	$(BIN)/decksheet register samples/decks/registered.ydk --player 1000000002 --name 이영희 --event $(OUT)/event.sqlite
	@$(BIN)/decksheet deckcheck samples/decks/observed.ydk --player 1000000002 --round 3 --event $(OUT)/event.sqlite; echo "(exit status $$?: 1 = mismatch recorded)"
	@$(BIN)/decksheet audit --out $(OUT)/audit --event $(OUT)/event.sqlite; echo "(exit status $$?)"
	@echo "== the check-in station on the demo event (runs 12 s here, then stops by SIGTERM)"
	@timeout -s TERM 12 $(BIN)/decksheet serve --event $(OUT)/event.sqlite --port 0 --workers 1 || true
	@echo "start it yourself: $(BIN)/decksheet serve --event $(OUT)/event.sqlite  and open the printed URL"
	@echo "(add --host 0.0.0.0 so judges' phones on the venue network can open it)"

# Every test, the slow OCR ones and the browser ones included; -rs prints why any test skipped.
test: setup
	OMP_THREAD_LIMIT=1 $(BIN)/python -m pytest -q -rs --runslow

# The quick loop while developing: everything but the tests marked slow.
test-fast: setup
	OMP_THREAD_LIMIT=1 $(BIN)/python -m pytest -q -rs

bench: setup
	OMP_THREAD_LIMIT=1 $(BIN)/python bench/bench_sheets.py

clean:
	rm -rf $(VENV) out build *.egg-info
