"""Java's JSON view (camelCase keys) as the golden sets write it (snake_case): stdin to stdout."""

import json
import re
import sys


def snake(value):
    if isinstance(value, dict):
        return {re.sub(r"(?<!^)(?=[A-Z])", "_", k).lower(): snake(v) for k, v in value.items()}
    if isinstance(value, list):
        return [snake(v) for v in value]
    return value


for line in sys.stdin:
    row = json.loads(line)
    row["value"] = snake(row["value"])
    print(json.dumps(row, ensure_ascii=False, separators=(",", ":")))
