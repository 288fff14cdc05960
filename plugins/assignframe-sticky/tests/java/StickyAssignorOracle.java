/*
 * Apache Kafka's own StickyAssignor / CooperativeStickyAssignor as a line oracle for the tests
 * (compiled by tests/java_oracle.py with javac against ../shared/java/clients/lib/*).
 *
 * One request per stdin line, one answer per stdout line:
 *   request  ASSIGNOR|TOPICS|MEMBERS
 *     ASSIGNOR  sticky or cooperative-sticky
 *     TOPICS    topic=RACKS/RACKS/... per partition, ';' between topics; RACKS are the racks of
 *               the partition's replicas, ',' between them, '-' for none (one broker per rack)
 *     MEMBERS   id:rack:generation:topic,topic:topic-partition,topic-partition ';' between members
 *               (empty rack: none; generation -1 and no partitions: a fresh member)
 *   answer   id=topic-partition,... ';' between members (members sorted), or "error CLASS MESSAGE"
 *
 * Each member's previous ownership travels as a real member's does: cooperative-sticky in the
 * subscription's owned partitions and generation, sticky in the StickyAssignor user data its own
 * assignor instance writes after onAssignment. The leader then calls assignPartitions with the
 * replicas' racks, as ConsumerCoordinator does from the cluster metadata.
 */
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.StringJoiner;
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

public final class StickyAssignorOracle {
    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String answer;
            try {
                answer = answer(line);
            } catch (RuntimeException e) {
                answer = "error " + e.getClass().getSimpleName() + " " + String.valueOf(e.getMessage()).replace('\n', ' ');
            }
            System.out.println(answer);
            System.out.flush();
        }
    }

    private static String answer(String line) {
        String[] fields = line.split("\\|", -1);
        if (fields.length != 3)
            throw new IllegalArgumentException("expected ASSIGNOR|TOPICS|MEMBERS, got " + fields.length + " fields");
        boolean cooperative;
        if (fields[0].equals("cooperative-sticky"))
            cooperative = true;
        else if (fields[0].equals("sticky"))
            cooperative = false;
        else
            throw new IllegalArgumentException("unknown assignor " + fields[0]);
        Map<String, List<PartitionInfo>> partitionsPerTopic = topics(fields[1]);
        Map<String, Subscription> subscriptions = new HashMap<>();
        for (String member : fields[2].split(";")) {
            String[] parts = member.split(":", -1);
            if (parts.length != 5)
                throw new IllegalArgumentException("member needs id:rack:generation:topics:owned: " + member);
            subscriptions.put(parts[0], subscription(cooperative, parts));
        }
        AbstractStickyAssignor leader = cooperative ? new CooperativeStickyAssignor() : new StickyAssignor();
        Map<String, List<TopicPartition>> result = leader.assignPartitions(partitionsPerTopic, subscriptions);
        StringJoiner members = new StringJoiner(";");
        for (Map.Entry<String, List<TopicPartition>> entry : new TreeMap<>(result).entrySet()) {
            StringJoiner partitions = new StringJoiner(",");
            for (TopicPartition tp : entry.getValue())
                partitions.add(tp.topic() + "-" + tp.partition());
            members.add(entry.getKey() + "=" + partitions);
        }
        return members.toString();
    }

    /** One broker per distinct rack name; a partition's replicas are the brokers of its racks. */
    private static Map<String, List<PartitionInfo>> topics(String text) {
        Map<String, Node> brokerOfRack = new HashMap<>();
        Map<String, List<PartitionInfo>> partitionsPerTopic = new HashMap<>();
        if (text.isEmpty())
            return partitionsPerTopic;
        for (String topic : text.split(";")) {
            int equals = topic.indexOf('=');
            String name = topic.substring(0, equals);
            List<PartitionInfo> infos = new ArrayList<>();
            String racksText = topic.substring(equals + 1);
            String[] perPartition = racksText.isEmpty() ? new String[0] : racksText.split("/", -1);
            for (int partition = 0; partition < perPartition.length; partition++) {
                List<Node> replicas = new ArrayList<>();
                if (!perPartition[partition].equals("-")) {
                    for (String rack : perPartition[partition].split(","))
                        replicas.add(brokerOfRack.computeIfAbsent(rack, r -> new Node(brokerOfRack.size(), "broker-" + r, 9092, r)));
                }
                Node[] nodes = replicas.toArray(new Node[0]);
                infos.add(new PartitionInfo(name, partition, nodes.length > 0 ? nodes[0] : null, nodes, nodes));
            }
            partitionsPerTopic.put(name, infos);
        }
        return partitionsPerTopic;
    }

    private static Subscription subscription(boolean cooperative, String[] parts) {
        Optional<String> rack = parts[1].isEmpty() ? Optional.empty() : Optional.of(parts[1]);
        int generation = Integer.parseInt(parts[2]);
        List<String> topics = new ArrayList<>(Arrays.asList(parts[3].split(",")));
        Collections.sort(topics);  // ConsumerProtocol sorts a subscription's topics
        List<TopicPartition> owned = new ArrayList<>();
        if (!parts[4].isEmpty()) {
            for (String tp : parts[4].split(",")) {
                int dash = tp.lastIndexOf('-');
                owned.add(new TopicPartition(tp.substring(0, dash), Integer.parseInt(tp.substring(dash + 1))));
            }
        }
        if (cooperative)
            return new Subscription(topics, null, owned, generation, rack);
        ByteBuffer userData = null;
        if (generation >= 0) {
            StickyAssignor memberAssignor = new StickyAssignor();
            memberAssignor.onAssignment(new Assignment(owned), new ConsumerGroupMetadata("group", generation, parts[0], Optional.empty()));
            userData = memberAssignor.subscriptionUserData(new HashSet<>(topics));
        }
        return new Subscription(topics, userData, Collections.emptyList(), -1, rack);
    }
}
