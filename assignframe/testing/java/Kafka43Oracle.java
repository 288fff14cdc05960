/*
 * Kafka43Oracle: Apache Kafka 4.3.1's own share and Streams assignors behind a JSON-lines pipe, for the
 * differential tests of assignframe's server:simple and streams:sticky plugins.
 *
 * Compiled at test time (assignframe/testing/java43_oracle.py) against ../shared/java/broker-4.3/libs (the
 * broker's own 4.3.1 jars: kafka-group-coordinator-4.3.1.jar holds the assignors) and the third-party jars
 * broker-4.3 shares with broker/ (jackson reads and writes the JSON here).
 *
 * One JSON object per stdin line, one per stdout line (flushed), in order; "id" is echoed as the first key.
 *
 *   {"op": "info"} -> {"result": {"kafka_version", "java_version", "ops"}}
 *
 *   {"op": "share_assign", "topics": {...}, "members": {...}, "unassignable"?, "subscription_type"?,
 *    "java_order"?}
 *       A round of shared/golden/kip848/assign.jsonl with its complete topic map, as the shared
 *       coordinator oracle takes it (shared/java/README.md), for SimpleAssignor with group type share:
 *       members in a HashMap filled in ascending member id order (or java_order.members, a LinkedHashMap);
 *       subscribedTopicIds() = new TopicIds(new HashSet<>(sorted topic names), resolver); each member's
 *       current map iterates in the listed order (LinkedHashMap of LinkedHashSets: the order the Python
 *       plugin replays; "current_empty_topics" adds empty sets last); topicPartitionAllowedMap = every partition of every topic minus "unassignable".
 *       -> {"result": {member: [[topic, partition] | [name, partition, topic_id], ...]}, "result_missing"?}
 *
 *   {"op": "streams_assign", "subtopologies": {id: {"partitions": n, "stateful": bool}},
 *    "members": [{"member_id", "process_id", "instance_id"?, "rack"?, "active"?: {subtopology: [p, ...]},
 *                 "standby"?: {...}, "warmup"?: {...}}, ...], "configs"?: {"num.standby.replicas": "1"}}
 *       StickyTaskAssignor.assign(new GroupSpecImpl(members, configs), describer): members are put into a
 *       HashMap<String, AssignmentMemberSpec> in the listed order (as TargetAssignmentBuilder.build() fills
 *       its memberSpecs); each member's task maps are HashMap<String, HashSet<Integer>>.
 *       -> {"result": {member: {"active": [[subtopology, p], ...], "standby": [...], "warmup": [...]}}}
 *          (members sorted, tasks sorted by subtopology id then partition), or
 *          {"error": {"class", "message"}} when Kafka's assignor throws.
 *
 *   {"op": "message", "type": "StreamsGroupHeartbeatResponse", "version": 0, "hex": "..."}
 *       Kafka 4.3.1's generated message class (kafka-clients' org.apache.kafka.common.message.<type>Data)
 *       reads the bytes and writes them again: -> {"result": {"hex": <its bytes>, "json": <its
 *       JsonConverter view>, "lowest": n, "highest": n}} (its supported versions); bytes it cannot read give
 *       {"error": ...}.
 *
 * Malformed requests -> {"error": {"class": "Kafka43Oracle$BadRequest", "message"}}; the process carries on.
 */

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.utils.AppInfoParser;
import org.apache.kafka.coordinator.common.runtime.CoordinatorMetadataImage;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscribedTopicDescriber;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;
import org.apache.kafka.coordinator.group.assignor.SimpleAssignor;
import org.apache.kafka.coordinator.group.modern.Assignment;
import org.apache.kafka.coordinator.group.modern.GroupSpecImpl;
import org.apache.kafka.coordinator.group.modern.MemberSubscriptionAndAssignmentImpl;
import org.apache.kafka.coordinator.group.modern.TopicIds;
import org.apache.kafka.coordinator.group.streams.assignor.AssignmentMemberSpec;
import org.apache.kafka.coordinator.group.streams.assignor.StickyTaskAssignor;
import org.apache.kafka.coordinator.group.streams.assignor.TopologyDescriber;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

public final class Kafka43Oracle {
    static final ObjectMapper JSON = new ObjectMapper();

    static final class BadRequest extends RuntimeException {
        BadRequest(String message) {
            super(message);
        }
    }

    public static void main(String[] args) throws Exception {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        String line;
        while ((line = in.readLine()) != null) {
            if (line.isBlank()) continue;
            ObjectNode response = JSON.createObjectNode();
            try {
                JsonNode request = JSON.readTree(line);
                if (!request.isObject()) throw new BadRequest("expected a JSON object");
                if (request.has("id")) response.set("id", request.get("id"));
                answer(request, response);
            } catch (Exception | StackOverflowError e) {
                ObjectNode error = response.putObject("error");
                error.put("class", e.getClass().getName());
                error.put("message", String.valueOf(e.getMessage()));
            }
            out.println(JSON.writeValueAsString(response));
            out.flush();
        }
    }

    static void answer(JsonNode request, ObjectNode response) throws Exception {
        String op = text(required(request, "op", ""), "op");
        switch (op) {
            case "info": {
                ObjectNode result = response.putObject("result");
                result.put("kafka_version", AppInfoParser.getVersion());
                result.put("kafka_commit", AppInfoParser.getCommitId());
                result.put("java_version", System.getProperty("java.version"));
                result.putArray("ops").add("info").add("share_assign").add("streams_assign").add("message");
                return;
            }
            case "share_assign":
                shareAssign(request, response);
                return;
            case "streams_assign":
                streamsAssign(request, response);
                return;
            case "message":
                message(request, response);
                return;
            default:
                throw new BadRequest("op: unknown op " + op);
        }
    }

    // ---- share groups: SimpleAssignor -----------------------------------------------------------------------

    /** The topic map, looked up both ways; stands in for the metadata image (the assignor only asks these). */
    static final class Topics implements TopicIds.TopicResolver, SubscribedTopicDescriber {
        final Map<String, Uuid> idByName = new HashMap<>();
        final Map<Uuid, String> nameById = new HashMap<>();
        final Map<Uuid, Integer> partitions = new HashMap<>();

        @Override public CoordinatorMetadataImage image() { return null; }
        @Override public String name(Uuid id) { return partitions.containsKey(id) ? nameById.get(id) : null; }
        @Override public Uuid id(String name) { return idByName.get(name); }
        @Override public void clear() { }
        @Override public int numPartitions(Uuid id) { return partitions.getOrDefault(id, -1); }
        @Override public Set<String> racksForPartition(Uuid id, int partition) { return Set.of(); }
    }

    static void shareAssign(JsonNode request, ObjectNode response) {
        Topics topics = new Topics();
        Iterator<Map.Entry<String, JsonNode>> topicFields = object(required(request, "topics", ""), "topics").fields();
        while (topicFields.hasNext()) {
            Map.Entry<String, JsonNode> e = topicFields.next();
            String at = "topics." + e.getKey();
            Uuid id = Uuid.fromString(text(required(e.getValue(), "id", at), at + ".id"));
            int n = integer(required(e.getValue(), "partitions", at), at + ".partitions");
            if (topics.partitions.put(id, n) != null) throw new BadRequest(at + ".id: topic id used twice");
            topics.idByName.put(e.getKey(), id);
            topics.nameById.put(id, e.getKey());
        }
        Set<Uuid> live = new HashSet<>(topics.partitions.keySet());

        TreeMap<String, JsonNode> sorted = new TreeMap<>();
        object(required(request, "members", ""), "members").fields()
            .forEachRemaining(e -> sorted.put(e.getKey(), object(e.getValue(), "members." + e.getKey())));
        Map<String, MemberSubscriptionAndAssignmentImpl> specs = new HashMap<>();
        Map<String, Set<String>> subscriptions = new HashMap<>();
        Map<Uuid, Map<Integer, String>> inverted = new HashMap<>();
        for (Map.Entry<String, JsonNode> e : sorted.entrySet()) {
            String memberId = e.getKey();
            String at = "members." + memberId;
            JsonNode m = e.getValue();
            TreeSet<String> names = new TreeSet<>(strings(required(m, "topics", at), at + ".topics"));
            subscriptions.put(memberId, names);
            LinkedHashMap<Uuid, Set<Integer>> current = new LinkedHashMap<>();
            JsonNode cur = m.get("current");
            for (int i = 0; cur != null && !cur.isNull() && i < cur.size(); i++) {
                JsonNode entry = cur.get(i);
                String eat = at + ".current[" + i + "]";
                if (!entry.isArray() || (entry.size() != 2 && entry.size() != 3)) {
                    throw new BadRequest(eat + ": expected [topic, partition] or [topic, partition, topic_id]");
                }
                String name = text(entry.get(0), eat + "[0]");
                Uuid id = entry.size() == 3 ? Uuid.fromString(text(entry.get(2), eat + "[2]")) : topics.idByName.get(name);
                if (id == null) throw new BadRequest(eat + ": topic " + name + " is not in \"topics\"");
                if (!live.contains(id)) topics.nameById.putIfAbsent(id, name);
                int p = integer(entry.get(1), eat + "[1]");
                current.computeIfAbsent(id, x -> new LinkedHashSet<>()).add(p);
                inverted.computeIfAbsent(id, x -> new HashMap<>()).put(p, memberId);
            }
            JsonNode empty = m.get("current_empty_topics");
            for (String name : empty == null || empty.isNull() ? List.<String>of() : strings(empty, at + ".current_empty_topics")) {
                Uuid id = topics.idByName.get(name);
                if (id == null) throw new BadRequest(at + ".current_empty_topics: topic " + name + " is not in \"topics\"");
                current.putIfAbsent(id, new LinkedHashSet<>());
            }
            specs.put(memberId, new MemberSubscriptionAndAssignmentImpl(
                Optional.ofNullable(textOrNull(m.get("rack"))),
                Optional.ofNullable(textOrNull(m.get("instance_id"))),
                new TopicIds(new HashSet<>(names), topics),
                new Assignment(current)));
        }
        Map<String, MemberSubscriptionAndAssignmentImpl> memberSpecs = specs;
        JsonNode javaOrder = request.get("java_order");
        if (javaOrder != null && javaOrder.has("members")) {
            List<String> order = strings(javaOrder.get("members"), "java_order.members");
            if (order.size() != specs.size() || !new HashSet<>(order).equals(specs.keySet())) {
                throw new BadRequest("java_order.members: expected a permutation of the member ids");
            }
            LinkedHashMap<String, MemberSubscriptionAndAssignmentImpl> ordered = new LinkedHashMap<>();
            for (String id : order) ordered.put(id, specs.get(id));
            memberSpecs = ordered;
        }

        Map<Uuid, Set<Integer>> allowed = new HashMap<>();
        topics.partitions.forEach((id, n) -> {
            Set<Integer> ps = new HashSet<>();
            for (int p = 0; p < n; p++) ps.add(p);
            allowed.put(id, ps);
        });
        JsonNode unassignable = request.get("unassignable");
        for (int i = 0; unassignable != null && !unassignable.isNull() && i < unassignable.size(); i++) {
            JsonNode entry = unassignable.get(i);
            Uuid id = topics.idByName.get(text(entry.get(0), "unassignable[" + i + "][0]"));
            if (id != null) allowed.get(id).remove(integer(entry.get(1), "unassignable[" + i + "][1]"));
        }

        GroupAssignment assignment = new SimpleAssignor().assign(
            new GroupSpecImpl(Collections.unmodifiableMap(memberSpecs), subscriptionType(request, subscriptions),
                inverted, Optional.of(allowed)),
            topics);

        ObjectNode result = response.putObject("result");
        ArrayNode missing = JSON.createArrayNode();
        TreeSet<String> ids = new TreeSet<>(sorted.keySet());
        ids.addAll(assignment.members().keySet());
        for (String memberId : ids) {
            MemberAssignment ma = assignment.members().get(memberId);
            ArrayNode pairs = result.putArray(memberId);
            if (ma == null) {
                missing.add(memberId);
                continue;
            }
            List<Object[]> entries = new ArrayList<>();
            ma.partitions().forEach((id, ps) -> {
                String name = topics.nameById.getOrDefault(id, id.toString());
                for (int p : ps) entries.add(new Object[]{name, p, live.contains(id) ? null : id.toString()});
            });
            entries.sort(Comparator.<Object[], String>comparing(x -> (String) x[0])
                .thenComparingInt(x -> (Integer) x[1])
                .thenComparing(x -> x[2] == null ? "" : (String) x[2]));
            for (Object[] x : entries) {
                ArrayNode pair = pairs.addArray().add((String) x[0]).add((Integer) x[1]);
                if (x[2] != null) pair.add((String) x[2]);
            }
        }
        if (!missing.isEmpty()) response.set("result_missing", missing);
    }

    static SubscriptionType subscriptionType(JsonNode request, Map<String, Set<String>> subscriptions) {
        JsonNode given = request.get("subscription_type");
        if (given != null && !given.isNull()) {
            switch (text(given, "subscription_type")) {
                case "homogeneous": return SubscriptionType.HOMOGENEOUS;
                case "heterogeneous": return SubscriptionType.HETEROGENEOUS;
                default: throw new BadRequest("subscription_type: expected homogeneous or heterogeneous");
            }
        }
        Set<String> all = new HashSet<>();
        subscriptions.values().forEach(all::addAll);
        for (Set<String> names : subscriptions.values()) {
            if (!names.equals(all)) return SubscriptionType.HETEROGENEOUS;
        }
        return SubscriptionType.HOMOGENEOUS;
    }

    // ---- Streams groups: StickyTaskAssignor -----------------------------------------------------------------

    static final class Topology implements TopologyDescriber {
        final List<String> ids = new ArrayList<>();
        final Map<String, Integer> partitions = new HashMap<>();
        final Set<String> stateful = new HashSet<>();

        @Override public List<String> subtopologies() { return ids; }
        @Override public boolean isStateful(String id) { return stateful.contains(id); }
        @Override public int maxNumInputPartitions(String id) {
            Integer n = partitions.get(id);
            if (n == null) throw new NoSuchElementException("no subtopology " + id);
            return n;
        }
    }

    static void streamsAssign(JsonNode request, ObjectNode response) {
        Topology topology = new Topology();
        object(required(request, "subtopologies", ""), "subtopologies").fields().forEachRemaining(e -> {
            String at = "subtopologies." + e.getKey();
            topology.ids.add(e.getKey());
            topology.partitions.put(e.getKey(), integer(required(e.getValue(), "partitions", at), at + ".partitions"));
            JsonNode stateful = e.getValue().get("stateful");
            if (stateful != null && stateful.asBoolean()) topology.stateful.add(e.getKey());
        });
        Map<String, AssignmentMemberSpec> members = new HashMap<>();
        JsonNode list = required(request, "members", "");
        if (!list.isArray()) throw new BadRequest("members: expected a list");
        for (int i = 0; i < list.size(); i++) {
            JsonNode m = list.get(i);
            String at = "members[" + i + "]";
            String memberId = text(required(m, "member_id", at), at + ".member_id");
            if (members.containsKey(memberId)) throw new BadRequest(at + ".member_id: listed twice");
            members.put(memberId, new AssignmentMemberSpec(
                Optional.ofNullable(textOrNull(m.get("instance_id"))),
                Optional.ofNullable(textOrNull(m.get("rack"))),
                tasks(m.get("active"), at + ".active"),
                tasks(m.get("standby"), at + ".standby"),
                tasks(m.get("warmup"), at + ".warmup"),
                text(required(m, "process_id", at), at + ".process_id"),
                Map.of(), Map.of(), Map.of()));
        }
        Map<String, String> configs = new HashMap<>();
        JsonNode given = request.get("configs");
        if (given != null && !given.isNull()) {
            object(given, "configs").fields().forEachRemaining(e -> configs.put(e.getKey(), text(e.getValue(), "configs." + e.getKey())));
        }
        org.apache.kafka.coordinator.group.streams.assignor.GroupAssignment assignment = new StickyTaskAssignor().assign(
            new org.apache.kafka.coordinator.group.streams.assignor.GroupSpecImpl(Collections.unmodifiableMap(members), configs),
            topology);
        ObjectNode result = response.putObject("result");
        for (String memberId : new TreeSet<>(assignment.members().keySet())) {
            var ma = assignment.members().get(memberId);
            ObjectNode out = result.putObject(memberId);
            writeTasks(out.putArray("active"), ma.activeTasks());
            writeTasks(out.putArray("standby"), ma.standbyTasks());
            writeTasks(out.putArray("warmup"), ma.warmupTasks());
        }
    }

    static Map<String, Set<Integer>> tasks(JsonNode node, String at) {
        Map<String, Set<Integer>> tasks = new HashMap<>();
        if (node == null || node.isNull()) return tasks;
        object(node, at).fields().forEachRemaining(e -> {
            Set<Integer> ps = new HashSet<>();
            for (JsonNode p : e.getValue()) ps.add(integer(p, at + "." + e.getKey()));
            tasks.put(e.getKey(), ps);
        });
        return tasks;
    }

    static void writeTasks(ArrayNode out, Map<String, Set<Integer>> tasks) {
        for (String subtopology : new TreeSet<>(tasks.keySet())) {
            for (int p : new TreeSet<>(tasks.get(subtopology))) out.addArray().add(subtopology).add(p);
        }
    }

    // ---- message bytes: Kafka's own generated classes -------------------------------------------------------

    static void message(JsonNode request, ObjectNode response) throws Exception {
        String type = text(required(request, "type", ""), "type");
        if (!type.matches("[A-Za-z]+")) throw new BadRequest("type: expected a message name");
        short version = (short) integer(required(request, "version", ""), "version");
        byte[] bytes = java.util.HexFormat.of().parseHex(text(required(request, "hex", ""), "hex"));
        Class<?> cls;
        try {
            cls = Class.forName("org.apache.kafka.common.message." + type + "Data");
        } catch (ClassNotFoundException e) {
            throw new BadRequest("type: no message class " + type + "Data in kafka-clients");
        }
        org.apache.kafka.common.protocol.Message message;
        try {
            message = (org.apache.kafka.common.protocol.Message) cls
                .getConstructor(org.apache.kafka.common.protocol.Readable.class, short.class)
                .newInstance(new org.apache.kafka.common.protocol.ByteBufferAccessor(java.nio.ByteBuffer.wrap(bytes)), version);
        } catch (java.lang.reflect.InvocationTargetException e) {
            throw (Exception) e.getCause();
        }
        org.apache.kafka.common.protocol.ObjectSerializationCache cache = new org.apache.kafka.common.protocol.ObjectSerializationCache();
        java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(message.size(cache, version));
        message.write(new org.apache.kafka.common.protocol.ByteBufferAccessor(out), cache, version);
        Class<?> converter = Class.forName(cls.getName() + "JsonConverter");
        JsonNode json = (JsonNode) converter.getMethod("write", cls, short.class, boolean.class).invoke(null, message, version, true);
        ObjectNode result = response.putObject("result");
        result.put("hex", java.util.HexFormat.of().formatHex(out.array()));
        result.set("json", json);
        result.put("lowest", cls.getField("LOWEST_SUPPORTED_VERSION").getShort(null));
        result.put("highest", cls.getField("HIGHEST_SUPPORTED_VERSION").getShort(null));
    }

    // ---- request reading ------------------------------------------------------------------------------------

    static JsonNode required(JsonNode node, String field, String at) {
        JsonNode value = node.get(field);
        if (value == null || value.isNull()) throw new BadRequest((at.isEmpty() ? "" : at + ".") + field + ": missing");
        return value;
    }

    static JsonNode object(JsonNode node, String at) {
        if (!node.isObject()) throw new BadRequest(at + ": expected an object");
        return node;
    }

    static String text(JsonNode node, String at) {
        if (node == null || !node.isTextual()) throw new BadRequest(at + ": expected a string");
        return node.asText();
    }

    static String textOrNull(JsonNode node) {
        return node == null || node.isNull() ? null : node.asText();
    }

    static int integer(JsonNode node, String at) {
        if (node == null || !node.canConvertToInt() || !node.isIntegralNumber()) throw new BadRequest(at + ": expected an int");
        return node.asInt();
    }

    static List<String> strings(JsonNode node, String at) {
        if (!node.isArray()) throw new BadRequest(at + ": expected a list of strings");
        List<String> out = new ArrayList<>();
        for (int i = 0; i < node.size(); i++) out.add(text(node.get(i), at + "[" + i + "]"));
        return out;
    }
}
