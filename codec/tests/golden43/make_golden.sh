#!/bin/sh
# Regenerate the golden sets of this folder with Kafka 4.3.1's own message classes
# (../shared/java/broker-4.3/libs/kafka-clients-4.3.1.jar, jackson from ../shared/java/broker/libs):
# DescribeShareGroupOffsetsGolden.java -> describe_share_group_offsets.jsonl,
# DescribeConfigsGolden.java -> describe_configs.jsonl.
# JSON keys are Java's camelCase turned into the golden sets' snake_case by golden43.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shared=${ASSIGNFRAME_SHARED:-$here/../../../../shared}
cp="$shared/java/broker-4.3/libs/kafka-clients-4.3.1.jar:$(ls "$shared"/java/broker/libs/jackson-*.jar | tr '\n' ':')"
out=$(mktemp -d)
javac -d "$out" -cp "$cp" "$here/DescribeShareGroupOffsetsGolden.java" "$here/DescribeConfigsGolden.java"
java -cp "$out:$cp" DescribeShareGroupOffsetsGolden | python3 "$here/golden43.py" > "$here/describe_share_group_offsets.jsonl"
java -cp "$out:$cp" DescribeConfigsGolden | python3 "$here/golden43.py" > "$here/describe_configs.jsonl"
rm -rf "$out"
