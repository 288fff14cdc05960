"""Apache Kafka 4.1.0 for tests: a three-node KRaft cluster on 127.0.0.1.

Each node is a :class:`~assignframe.testing.kafka_node.KafkaNode` (broker + controller, its own
ports and directory) started by ``start.sh``; what start.sh does for one node (writing
server.properties, formatting) is done here for the quorum: every node lists all three as
``controller.quorum.voters`` and is formatted with one cluster id, after which start.sh only
starts it (it starts a formatted directory as it is). Internal topics are replicated to all three
(``offsets.topic.replication.factor=3``, min ISR 2), so group coordinators spread over the
brokers and move when one dies. Nothing is simulated: :meth:`KafkaCluster.kill` is a SIGKILL of
one node's JVM.
"""

from __future__ import annotations

import base64
import os
import subprocess
import threading
import uuid
from pathlib import Path

from .broker_base import HOST, LocalBrokerError, free_port, tail
from .kafka_node import KafkaNode, broker_java

__all__ = ["CLUSTER_PROPERTIES", "KafkaCluster"]

#: On top of start.sh's single-node defaults: internal topics replicated to the whole cluster.
CLUSTER_PROPERTIES: dict[str, str] = {
    "offsets.topic.replication.factor": "3",
    "offsets.topic.num.partitions": "12",
    "transaction.state.log.replication.factor": "3",
    "transaction.state.log.min.isr": "2",
    "share.coordinator.state.topic.replication.factor": "3",
    "share.coordinator.state.topic.min.isr": "2",
    "default.replication.factor": "3",
    "min.insync.replicas": "1",
    "num.partitions": "1",
}


class KafkaCluster:
    """``size`` KRaft nodes (node ids 1..size) in ``directory/node-ID``.

    :param dist: ``shared/java/broker``
    :param directory: the cluster directory (created)
    :param start_timeout: seconds each node may take to answer
    """

    def __init__(
        self, dist: Path, directory: Path, *, size: int = 3, start_timeout: int = 180
    ) -> None:
        self.dist, self.directory = dist, directory
        ports = [(free_port(), free_port()) for _ in range(size)]
        self.nodes = {
            node_id: KafkaNode(dist, directory / f"node-{node_id}", broker_port=broker,
                               controller_port=controller, start_timeout=start_timeout)
            for node_id, (broker, controller) in enumerate(ports, start=1)
        }  # fmt: skip

    @property
    def bootstrap(self) -> str:
        """Every node's address, comma-separated, as clients take it."""
        return ",".join(node.bootstrap for node in self.nodes.values())

    def node_of_port(self, port: int) -> int:
        """The node id listening on broker port ``port``."""
        return next(node_id for node_id, node in self.nodes.items() if node.port == port)

    def start(self) -> None:
        """Format every node (first start only), then start all at once: a node answers only
        once a majority of the quorum runs.

        :raises LocalBrokerError: a node failed to start (every node is stopped first)
        """
        java = broker_java()
        if not all((node.directory / "data" / "meta.properties").is_file()
                   for node in self.nodes.values()):  # fmt: skip
            cluster_id = _cluster_id()
            for node_id in self.nodes:
                self._format(node_id, cluster_id, java)
        self._start_nodes(list(self.nodes))

    def start_node(self, node_id: int) -> None:
        """Start one stopped node again from its directory (same ports, data)."""
        self._start_nodes([node_id])

    def _start_nodes(self, node_ids: list[int]) -> None:
        failures: list[BaseException] = []

        def run(node: KafkaNode) -> None:
            try:
                node.start()
            except BaseException as error:  # reported below, from the main thread
                failures.append(error)

        threads = [threading.Thread(target=run, args=(self.nodes[i],)) for i in node_ids]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()  # KafkaNode.start is bounded by its own start timeout
        if failures:
            self.stop()
            raise LocalBrokerError("\n".join(str(error) for error in failures))

    def _format(self, node_id: int, cluster_id: str, java: Path) -> None:
        node = self.nodes[node_id]
        node.directory.mkdir(parents=True, exist_ok=True)
        properties = node.directory / "server.properties"
        properties.write_text(
            "".join(f"{key}={value}\n" for key, value in self._properties(node_id).items())
        )
        try:
            result = subprocess.run(
                [str(self.dist / "bin" / "kafka-storage.sh"), "format", "-t", cluster_id,
                 "-c", str(properties)],
                capture_output=True, text=True, timeout=180,
                env={**os.environ, "JAVA": str(java),
                     "LOG_DIR": str(node.directory / "logs")},
            )  # fmt: skip
        except subprocess.TimeoutExpired:
            raise LocalBrokerError(f"formatting {node.directory} took over 180 s") from None
        if result.returncode != 0:
            raise LocalBrokerError(
                f"formatting {node.directory} failed ({result.returncode}):\n"
                f"{result.stdout[-2000:]}\n{result.stderr[-2000:]}"
            )

    def _properties(self, node_id: int) -> dict[str, str]:
        node = self.nodes[node_id]
        voters = ",".join(
            f"{i}@{HOST}:{other.controller_port}" for i, other in self.nodes.items()
        )
        return {
            "process.roles": "broker,controller",
            "node.id": str(node_id),
            "controller.quorum.voters": voters,
            "listeners": f"PLAINTEXT://{HOST}:{node.port},CONTROLLER://{HOST}:{node.controller_port}",
            "advertised.listeners": f"PLAINTEXT://{HOST}:{node.port}",
            "controller.listener.names": "CONTROLLER",
            "inter.broker.listener.name": "PLAINTEXT",
            "listener.security.protocol.map": "CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT",
            "log.dirs": str(node.directory / "data"),
            "group.coordinator.rebalance.protocols": "classic,consumer",
            "group.initial.rebalance.delay.ms": "0",
            "auto.create.topics.enable": "true",
            **CLUSTER_PROPERTIES,
            **node.properties,
        }

    def kill(self, node_id: int) -> None:
        """SIGKILL one node's JVM, as a crash."""
        self.nodes[node_id].kill()

    def stop(self, timeout: float = 30.0) -> None:
        """Every node's controlled shutdown at once, each SIGKILLed after ``timeout`` seconds.
        One after the other, the last node waits out ``timeout`` for a controller quorum that
        the ones before it took away (31 s where this takes 9, with one node killed before)."""
        threads = [threading.Thread(target=node.stop, args=(timeout,))
                   for node in self.nodes.values()]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()  # KafkaNode.stop is bounded: SIGKILL after ``timeout``

    def logs(self) -> str:
        """The last lines of every node's log, for failure messages."""
        return "\n".join(
            f"--- node {i}: {node.log_path} ---\n{tail(node.log_path)}"
            for i, node in self.nodes.items()
        )


def _cluster_id() -> str:
    """A KRaft cluster id: 16 random bytes, URL-safe base64 without padding (as
    ``kafka-storage.sh random-uuid`` prints)."""
    return base64.urlsafe_b64encode(uuid.uuid4().bytes).decode().rstrip("=")

