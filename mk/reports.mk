# reports: a sample run.json writer and a Markdown-to-HTML renderer (cmark, raw
# HTML kept) for the report end-to-end tests, and the
# report demo (HTML rendered and screenshotted in headless Chromium).
SAMPLE_RUN := $(BUILD)/tests/tools/sample_run
MD_HTML := $(BUILD)/tests/tools/md_html

test unit e2e: $(SAMPLE_RUN) $(MD_HTML)

report-demo: build
	@PGCI=$(abspath $(BIN)) PGCI_BUILD=$(BUILD) bash scripts/report-demo.sh
