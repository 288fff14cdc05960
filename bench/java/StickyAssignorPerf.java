/*
 * StickyAssignorPerf: wall time of Apache Kafka's own StickyAssignor / CooperativeStickyAssignor
 * (kafka-clients in ../shared/java/clients/lib) on the cases of bench/bench_sticky.py, which
 * compiles it with javac and runs it beside the Python strategies, alternating.
 *
 *   java -cp "classes:clients/lib/*" StickyAssignorPerf ASSIGNOR CASEFILE REPEAT
 *
 * ASSIGNOR: sticky or cooperative-sticky. CASEFILE (written by bench_sticky.py):
 *   topics COUNT PARTITIONS         topics topic-0000 .. with PARTITIONS partitions each
 *   prior                           (optional) B/E2: the members so far get their generation-1
 *                                   assignment from this assignor, then every 10th (sorted by id,
 *                                   the 10th, 20th, ...) leaves; the members after "joiners" join
 *   member ID SPEC / joiner ID SPEC SPEC: topic indexes and ranges, "0-499,7"
 * Previous ownership travels as a real member's does: cooperative-sticky in the subscription's
 * owned partitions and generation, sticky in the user data its own assignor writes after
 * onAssignment. One warm-up call, then REPEAT timed calls of assignPartitions, each on fresh
 * Subscription objects (built outside the timing) after System.gc(). Prints one line:
 *   median_s=... min_s=... partitions=... members=...
 */
import java.nio.ByteBuffer;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Assignment;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor.Subscription;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.clients.consumer.StickyAssignor;
import org.apache.kafka.clients.consumer.internals.AbstractStickyAssignor;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.PartitionInfo;
import org.apache.kafka.common.TopicPartition;

public final class StickyAssignorPerf {
    /** One member: its topics and, for B/E2, what it owned in generation 1 (null: fresh). */
    record Member(List<String> topics, List<TopicPartition> owned) { }

    static volatile Object sink;

    public static void main(String[] args) throws Exception {
        if (args.length != 3)
            throw new IllegalArgumentException("usage: StickyAssignorPerf ASSIGNOR CASEFILE REPEAT");
        boolean cooperative = switch (args[0]) {
            case "sticky" -> false;
            case "cooperative-sticky" -> true;
            default -> throw new IllegalArgumentException("unknown assignor " + args[0]);
        };
        int repeat = Integer.parseInt(args[2]);
        List<String> names = new ArrayList<>();
        Map<String, List<PartitionInfo>> partitionsPerTopic = new HashMap<>();
        Map<String, Member> members = new TreeMap<>();
        Map<String, Member> joiners = new TreeMap<>();
        boolean prior = false;
        Node node = new Node(0, "broker-0", 9092);
        Node[] replicas = {node};
        for (String line : Files.readAllLines(Path.of(args[1]))) {
            String[] f = line.trim().split(" ");
            switch (f[0]) {
                case "topics" -> {
                    int count = Integer.parseInt(f[1]);
                    int partitions = Integer.parseInt(f[2]);
                    for (int t = 0; t < count; t++) {
                        String name = String.format("topic-%04d", t);
                        names.add(name);
                        List<PartitionInfo> infos = new ArrayList<>(partitions);
                        for (int p = 0; p < partitions; p++) infos.add(new PartitionInfo(name, p, node, replicas, replicas));
                        partitionsPerTopic.put(name, infos);
                    }
                }
                case "prior" -> prior = true;
                case "member", "joiner" -> {
                    List<String> topics = new ArrayList<>();
                    for (String part : f[2].split(",")) {
                        int dash = part.indexOf('-');
                        int lo = Integer.parseInt(dash < 0 ? part : part.substring(0, dash));
                        int hi = dash < 0 ? lo : Integer.parseInt(part.substring(dash + 1));
                        for (int t = lo; t <= hi; t++) topics.add(names.get(t));
                    }
                    Collections.sort(topics);  // ConsumerProtocol sorts a subscription's topics
                    (f[0].equals("member") ? members : joiners).put(f[1], new Member(topics, null));
                }
                default -> throw new IllegalArgumentException("bad line: " + line);
            }
        }
        if (prior) {
            Map<String, List<TopicPartition>> first = assignor(cooperative).assignPartitions(partitionsPerTopic, subscriptions(cooperative, members));
            Map<String, Member> survivors = new TreeMap<>();
            int i = 0;
            for (Map.Entry<String, Member> e : members.entrySet()) {
                if (i++ % 10 == 9) continue;
                survivors.put(e.getKey(), new Member(e.getValue().topics(), first.get(e.getKey())));
            }
            members = survivors;
        }
        members.putAll(joiners);
        long partitions = 0;
        Map<String, List<TopicPartition>> result = assignor(cooperative).assignPartitions(partitionsPerTopic, subscriptions(cooperative, members));
        for (List<TopicPartition> tps : result.values()) partitions += tps.size();
        long[] wall = new long[repeat];
        for (int r = 0; r < repeat; r++) {
            Map<String, Subscription> subscriptions = subscriptions(cooperative, members);
            AbstractStickyAssignor leader = assignor(cooperative);
            result = null;
            System.gc();
            long w0 = System.nanoTime();
            result = leader.assignPartitions(partitionsPerTopic, subscriptions);
            wall[r] = System.nanoTime() - w0;
            sink = result;
        }
        long[] sorted = wall.clone();
        Arrays.sort(sorted);
        double median = repeat % 2 == 1 ? sorted[repeat / 2] : (sorted[repeat / 2 - 1] + sorted[repeat / 2]) / 2.0;
        System.out.printf("median_s=%.6f min_s=%.6f partitions=%d members=%d%n", median / 1e9, sorted[0] / 1e9, partitions, members.size());
    }

    static AbstractStickyAssignor assignor(boolean cooperative) {
        return cooperative ? new CooperativeStickyAssignor() : new StickyAssignor();
    }

    static Map<String, Subscription> subscriptions(boolean cooperative, Map<String, Member> members) {
        Map<String, Subscription> out = new HashMap<>();
        for (Map.Entry<String, Member> e : members.entrySet()) {
            Member m = e.getValue();
            if (m.owned() == null) {
                out.put(e.getKey(), new Subscription(m.topics(), null, Collections.emptyList(), -1, Optional.empty()));
            } else if (cooperative) {
                out.put(e.getKey(), new Subscription(m.topics(), null, m.owned(), 1, Optional.empty()));
            } else {
                StickyAssignor memberAssignor = new StickyAssignor();
                memberAssignor.onAssignment(new Assignment(m.owned()), new ConsumerGroupMetadata("group", 1, e.getKey(), Optional.empty()));
                ByteBuffer userData = memberAssignor.subscriptionUserData(new HashSet<>(m.topics()));
                out.put(e.getKey(), new Subscription(m.topics(), userData, Collections.emptyList(), -1, Optional.empty()));
            }
        }
        return out;
    }
}
