#!/usr/bin/env python3
"""validate_json.py SCHEMA DOC...: validates JSON documents against a JSON Schema
(draft picked from the schema's $schema), printing every violation."""
import json
import sys

import jsonschema


def main():
    with open(sys.argv[1]) as f:
        schema = json.load(f)
    cls = jsonschema.validators.validator_for(schema)
    cls.check_schema(schema)
    validator = cls(schema)
    bad = 0
    for path in sys.argv[2:]:
        with open(path) as f:
            doc = json.load(f)
        errors = sorted(validator.iter_errors(doc), key=lambda e: list(e.path))
        for e in errors:
            print(f"{path}: {'/'.join(map(str, e.path))}: {e.message}")
        bad += len(errors)
        print(f"{path}: {'valid' if not errors else 'INVALID'} against {schema.get('title')}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
