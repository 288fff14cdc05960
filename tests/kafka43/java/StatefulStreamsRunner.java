/*
 * StatefulStreamsRunner: a Kafka Streams 4.3.1 instance in a Streams group (group.protocol=streams, KIP-1071)
 * whose one sub-topology keeps state, so the broker gives standby tasks: INPUT_TOPIC -> groupByKey -> count
 * into an in-memory store ("counts", changelogged to APP_ID-counts-changelog; in memory, so RocksDB's native
 * library, which shared/java does not have, is never loaded).
 *
 * usage: java StatefulStreamsRunner BOOTSTRAP APP_ID INPUT_TOPIC CLIENT_ID STANDBY_REPLICAS
 *
 * Before it starts, it sets the group config streams.num.standby.replicas=STANDBY_REPLICAS through Admin (a group
 * config may be set before the group exists). One stream thread: the instance is one member and one process.
 * It runs until SIGTERM (closes, leaving the group, exit 143) or for STATEFUL_RUNNER_SECONDS (default 600).
 *
 * stdout, one JSON line per event (the shape of clients-4.3's StreamsMemberRunner, so the tests read both alike):
 *   {"event": "state", "state": "RUNNING"|...}            every state change of the instance
 *   {"event": "tasks", "active": [...], "standby": [...], "threads": {"CONSUMER_CLIENT_ID": {"active": [...],
 *       "standby": [...]}}}                              every change of its tasks (read every 100 ms)
 *   {"event": "error", "class": "...", "message": "..."}   the group config could not be set, or a thread failed
 */

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.AlterConfigOp;
import org.apache.kafka.clients.admin.ConfigEntry;
import org.apache.kafka.common.config.ConfigResource;
import org.apache.kafka.common.serialization.Serdes;
import org.apache.kafka.streams.KafkaStreams;
import org.apache.kafka.streams.StreamsBuilder;
import org.apache.kafka.streams.StreamsConfig;
import org.apache.kafka.streams.TaskMetadata;
import org.apache.kafka.streams.ThreadMetadata;
import org.apache.kafka.streams.errors.StreamsUncaughtExceptionHandler.StreamThreadExceptionResponse;
import org.apache.kafka.streams.kstream.Consumed;
import org.apache.kafka.streams.kstream.Materialized;
import org.apache.kafka.streams.state.Stores;

import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.TreeMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

public final class StatefulStreamsRunner {
    private static synchronized void emit(String json) {
        System.out.println(json);
        System.out.flush();
    }

    private static String quote(String s) {
        StringBuilder out = new StringBuilder("\"");
        for (char c : s.toCharArray()) {
            if (c == '"' || c == '\\') {
                out.append('\\').append(c);
            } else if (c < 0x20) {
                out.append(String.format("\\u%04x", (int) c));
            } else {
                out.append(c);
            }
        }
        return out.append('"').toString();
    }

    /** Task ids ("0_3") in sub-topology, then partition order, as a JSON array. */
    private static String tasks(Collection<TaskMetadata> tasks) {
        List<int[]> ids = new ArrayList<>();
        for (TaskMetadata t : tasks) {
            ids.add(new int[] {t.taskId().subtopology(), t.taskId().partition()});
        }
        ids.sort((a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));
        List<String> shown = new ArrayList<>();
        for (int[] id : ids) {
            shown.add(quote(id[0] + "_" + id[1]));
        }
        return "[" + String.join(", ", shown) + "]";
    }

    private static String tasksLine(KafkaStreams streams) {
        List<TaskMetadata> active = new ArrayList<>(), standby = new ArrayList<>();
        Map<String, String> threads = new TreeMap<>();
        for (ThreadMetadata thread : streams.metadataForLocalThreads()) {
            active.addAll(thread.activeTasks());
            standby.addAll(thread.standbyTasks());
            threads.put(thread.consumerClientId(), "{\"active\": " + tasks(thread.activeTasks())
                + ", \"standby\": " + tasks(thread.standbyTasks()) + "}");
        }
        List<String> perThread = new ArrayList<>();
        threads.forEach((id, json) -> perThread.add(quote(id) + ": " + json));
        return "{\"event\": \"tasks\", \"active\": " + tasks(active) + ", \"standby\": " + tasks(standby)
            + ", \"threads\": {" + String.join(", ", perThread) + "}}";
    }

    private static void error(Throwable e) {
        emit("{\"event\": \"error\", \"class\": " + quote(e.getClass().getName()) + ", \"message\": "
            + quote(String.valueOf(e.getMessage())) + "}");
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: java StatefulStreamsRunner BOOTSTRAP APP_ID INPUT_TOPIC CLIENT_ID STANDBY_REPLICAS");
            System.exit(2);
        }
        String bootstrap = args[0], app = args[1], input = args[2], client = args[3], standbys = args[4];
        Properties adminProps = new Properties();
        adminProps.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        try (Admin admin = Admin.create(adminProps)) {
            ConfigResource group = new ConfigResource(ConfigResource.Type.GROUP, app);
            AlterConfigOp set = new AlterConfigOp(new ConfigEntry("streams.num.standby.replicas", standbys),
                AlterConfigOp.OpType.SET);
            admin.incrementalAlterConfigs(Map.of(group, List.of(set))).all().get(60, TimeUnit.SECONDS);
        } catch (Exception e) {
            error(e);
            System.exit(1);
        }

        StreamsBuilder builder = new StreamsBuilder();
        builder.stream(input, Consumed.with(Serdes.ByteArray(), Serdes.ByteArray()))
            .groupByKey()
            .count(Materialized.<byte[], Long>as(Stores.inMemoryKeyValueStore("counts"))
                .withKeySerde(Serdes.ByteArray()));
        Properties props = new Properties();
        props.put(StreamsConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
        props.put(StreamsConfig.APPLICATION_ID_CONFIG, app);
        props.put(StreamsConfig.CLIENT_ID_CONFIG, client);
        props.put(StreamsConfig.GROUP_PROTOCOL_CONFIG, "streams");
        props.put(StreamsConfig.NUM_STREAM_THREADS_CONFIG, 1);
        props.put(StreamsConfig.COMMIT_INTERVAL_MS_CONFIG, 1000);
        props.put(StreamsConfig.STATE_DIR_CONFIG, Files.createTempDirectory("stateful-runner-").toString());

        KafkaStreams streams = new KafkaStreams(builder.build(), props);
        CountDownLatch stop = new CountDownLatch(1);
        streams.setStateListener((now, before) -> emit("{\"event\": \"state\", \"state\": " + quote(now.name()) + "}"));
        streams.setUncaughtExceptionHandler(e -> {
            error(e);
            stop.countDown();
            return StreamThreadExceptionResponse.SHUTDOWN_CLIENT;
        });
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            stop.countDown();
            streams.close(java.time.Duration.ofSeconds(30));
        }));
        streams.start();
        long seconds = Long.parseLong(System.getenv().getOrDefault("STATEFUL_RUNNER_SECONDS", "600"));
        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        String last = null;
        while (System.nanoTime() < end && !stop.await(100, TimeUnit.MILLISECONDS)) {
            String line = tasksLine(streams);
            if (!line.equals(last)) {
                emit(line);
                last = line;
            }
        }
        streams.close(java.time.Duration.ofSeconds(30));
    }
}
