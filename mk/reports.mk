# reports: a sample run.json writer for the report end-to-end tests, and the
# report demo (HTML rendered and screenshotted in headless Chromium).
SAMPLE_RUN := $(BUILD)/tests/tools/sample_run

test unit e2e: $(SAMPLE_RUN)

report-demo: build
	@PGCI=$(abspath $(BIN)) PGCI_BUILD=$(BUILD) bash scripts/report-demo.sh
