# Shared by tests/corpus/50-regen.sh and bench/40-regen.sh.
# veomni_workspace DIR VEOMNI_WHEEL_DIR: makes DIR a workspace holding the wheel's
# configs and checked-in generated files, with VeOmni's [tool.patchgen] and
# [tool.ruff] settings (the wheel carries no pyproject.toml; the lint configuration
# is part of what the normalised bytes depend on).
veomni_workspace() {
    local ws=$1 veomni=$2
    mkdir -p "$ws/veomni/models"
    cp -r "$veomni/veomni/models/transformers" "$ws/veomni/models/"
    cat >"$ws/pyproject.toml" <<'TOML'
# VeOmni's settings that patchgen and ruff read (from its pyproject.toml).
[project]
name = "veomni"
version = "0.1.12"
[dependency-groups]
transformers-stable = ["transformers==5.9.0"]

[tool.patchgen]
search_root = "veomni/models/transformers"
package_prefix = "veomni.models.transformers"

[tool.ruff]
target-version = "py311"
line-length = 119
indent-width = 4

[tool.ruff.lint]
ignore = ["B905", "C901", "E501", "E741", "W605", "C408"]
select = ["B", "C", "E", "F", "I", "W"]

[tool.ruff.lint.per-file-ignores]
"__init__.py" = ["E402", "F401", "F403", "F811"]
"veomni/models/transformers/**/generated/*.py" = ["E402", "B007"]
"veomni/models/transformers/**/*_patch_gen_config.py" = ["F821"]

[tool.ruff.lint.isort]
lines-after-imports = 2
known-first-party = ["veomni"]
known-third-party = ["torch", "transformers", "wandb"]

[tool.ruff.format]
quote-style = "double"
indent-style = "space"
skip-magic-trailing-comma = false
line-ending = "auto"
TOML
}
