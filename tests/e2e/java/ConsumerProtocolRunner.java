/*
 * ConsumerProtocolRunner: Kafka's Java KafkaConsumer with group.protocol=consumer (KIP-848), for the
 * e2e tests (tests/e2e/java_member.py compiles it in the test session against
 * shared/java/clients/lib/* and reads its stdout).
 *
 * usage: java ConsumerProtocolRunner BOOTSTRAP GROUP TOPICS REMOTE_ASSIGNOR CLIENT_ID
 *   TOPICS: comma-separated; REMOTE_ASSIGNOR: the broker's assignor (group.remote.assignor).
 *
 * stdout: one JSON line per rebalance callback, the same shape as shared/java/clients'
 * JavaLabConsumer (the whole assignment after the callback, sorted), plus the member id:
 *   {"event": "assigned"|"revoked"|"lost", "assignment": [["topic", 0], ...], "member_id": "..."}
 * It polls until SIGTERM (then closes the consumer, leaving the group) or until
 * CONSUMER_PROTOCOL_RUN_SECONDS (default 900) pass. Kafka's log goes to stderr.
 */

import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;

import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.Properties;
import java.util.TreeSet;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

public final class ConsumerProtocolRunner {
    private static final PrintStream OUT = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    private static final Comparator<TopicPartition> ORDER =
        Comparator.comparing(TopicPartition::topic).thenComparingInt(TopicPartition::partition);

    // Topic names and member ids in these tests are plain ASCII without quotes or backslashes.
    private static String line(String event, Collection<TopicPartition> assignment, String memberId) {
        String pairs = assignment.stream()
            .map(tp -> "[\"" + tp.topic() + "\", " + tp.partition() + "]")
            .collect(Collectors.joining(", "));
        return "{\"event\": \"" + event + "\", \"assignment\": [" + pairs + "], \"member_id\": \""
            + memberId + "\"}";
    }

    public static void main(String[] args) throws Exception {
        if (args.length != 5) {
            System.err.println("usage: ConsumerProtocolRunner BOOTSTRAP GROUP TOPICS REMOTE_ASSIGNOR CLIENT_ID");
            System.exit(2);
        }
        long seconds = Long.parseLong(System.getenv().getOrDefault("CONSUMER_PROTOCOL_RUN_SECONDS", "900"));
        Properties config = new Properties();
        config.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, args[0]);
        config.put(ConsumerConfig.GROUP_ID_CONFIG, args[1]);
        config.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "consumer");
        config.put(ConsumerConfig.GROUP_REMOTE_ASSIGNOR_CONFIG, args[3]);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, args[4]);
        config.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        config.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, "false");
        config.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        config.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());

        KafkaConsumer<byte[], byte[]> consumer = new KafkaConsumer<>(config);
        CountDownLatch closed = new CountDownLatch(1);
        Runtime.getRuntime().addShutdownHook(new Thread(() -> {
            consumer.wakeup();  // SIGTERM: leave the group from the polling thread, then exit
            try {
                closed.await(15, TimeUnit.SECONDS);
            } catch (InterruptedException ignored) {
                Thread.currentThread().interrupt();
            }
        }, "consumer-protocol-runner-shutdown"));

        consumer.subscribe(Arrays.asList(args[2].split(",")), new ConsumerRebalanceListener() {
            private void emit(String event, Collection<TopicPartition> changed, boolean added) {
                TreeSet<TopicPartition> after = new TreeSet<>(ORDER);
                after.addAll(consumer.assignment());
                if (added) {
                    after.addAll(changed);
                } else {
                    after.removeAll(changed);
                }
                OUT.println(line(event, after, consumer.groupMetadata().memberId()));
            }

            @Override
            public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
                emit("revoked", partitions, false);
            }

            @Override
            public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
                emit("assigned", partitions, true);
            }

            @Override
            public void onPartitionsLost(Collection<TopicPartition> partitions) {
                emit("lost", partitions, false);
            }
        });

        long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
        try {
            while (System.nanoTime() < end) {
                consumer.poll(Duration.ofMillis(200));
            }
        } catch (WakeupException e) {
            System.err.println("consumer-protocol-runner: stopping");
        } finally {
            try {
                consumer.close(Duration.ofSeconds(10));
            } finally {
                closed.countDown();
            }
        }
    }
}
