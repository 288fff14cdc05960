#!/bin/sh
# Regenerate describe_share_group_offsets.jsonl with Kafka 4.3.1's own message classes
# (../shared/java/broker-4.3/libs/kafka-clients-4.3.1.jar, jackson from ../shared/java/broker/libs).
# JSON keys are Java's camelCase turned into the golden sets' snake_case by golden43.py.
set -eu
here=$(cd "$(dirname "$0")" && pwd)
shared=${ASSIGNFRAME_SHARED:-$here/../../../../shared}
cp="$shared/java/broker-4.3/libs/kafka-clients-4.3.1.jar:$(ls "$shared"/java/broker/libs/jackson-*.jar | tr '\n' ':')"
out=$(mktemp -d)
javac -d "$out" -cp "$cp" "$here/DescribeShareGroupOffsetsGolden.java"
java -cp "$out:$cp" DescribeShareGroupOffsetsGolden | python3 "$here/golden43.py" > "$here/describe_share_group_offsets.jsonl"
rm -rf "$out"
