// Golden bodies of DescribeShareGroupOffsets (api key 90) v0-1 made by Apache Kafka 4.3.1's own
// generated message classes (kafka-clients-4.3.1.jar, Kafka 26b251a451): for each case and
// version, the bytes Java writes and Java's JSON view (JsonConverter), one JSON line each on
// stdout. Run by make_golden.sh; the output is describe_share_group_offsets.jsonl.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import org.apache.kafka.common.Uuid;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsRequestDataJsonConverter;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseData;
import org.apache.kafka.common.message.DescribeShareGroupOffsetsResponseDataJsonConverter;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

public class DescribeShareGroupOffsetsGolden {
    static final ObjectMapper MAPPER = new ObjectMapper();

    static String hex(Message m, short v) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buf = ByteBuffer.allocate(m.size(cache, v));
        m.write(new ByteBufferAccessor(buf), cache, v);
        StringBuilder out = new StringBuilder();
        for (byte b : buf.array()) out.append(String.format("%02x", b));
        return out.toString();
    }

    static void line(String type, short v, String kase, Message m, JsonNode value) throws Exception {
        ObjectNode row = MAPPER.createObjectNode();
        row.put("kind", "api").put("type", type).put("version", v).put("case", kase)
            .put("api_key", 90).put("flexible", true);
        row.set("value", value);
        row.put("hex", hex(m, v));
        System.out.println(MAPPER.writeValueAsString(row));
    }

    static DescribeShareGroupOffsetsRequestData request(boolean full) {
        DescribeShareGroupOffsetsRequestData data = new DescribeShareGroupOffsetsRequestData();
        if (!full) return data;
        List<DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup> groups = new ArrayList<>();
        groups.add(new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup()
            .setGroupId("share-a").setTopics(null));
        List<DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic> topics = new ArrayList<>();
        topics.add(new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic()
            .setTopicName("orders").setPartitions(List.of(0, 3, 2147483647)));
        topics.add(new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestTopic()
            .setTopicName("\u00e7\u6f22\ud834\udd1e").setPartitions(List.of()));
        groups.add(new DescribeShareGroupOffsetsRequestData.DescribeShareGroupOffsetsRequestGroup()
            .setGroupId("").setTopics(topics));
        return data.setGroups(groups);
    }

    static DescribeShareGroupOffsetsResponseData response(boolean full) {
        DescribeShareGroupOffsetsResponseData data = new DescribeShareGroupOffsetsResponseData();
        if (!full) return data;
        List<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition> parts = new ArrayList<>();
        parts.add(new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition()
            .setPartitionIndex(0).setStartOffset(17L).setLeaderEpoch(3).setLag(5L));
        parts.add(new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition()
            .setPartitionIndex(1).setStartOffset(-1L).setLeaderEpoch(-1).setLag(-1L));
        parts.add(new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponsePartition()
            .setPartitionIndex(2147483647).setStartOffset(Long.MAX_VALUE).setLeaderEpoch(0)
            .setLag(Long.MIN_VALUE).setErrorCode((short) 3).setErrorMessage("unknown partition"));
        List<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic> topics = new ArrayList<>();
        topics.add(new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseTopic()
            .setTopicName("orders").setTopicId(new Uuid(0x1234567890abcdefL, -42L)).setPartitions(parts));
        List<DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup> groups = new ArrayList<>();
        groups.add(new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
            .setGroupId("share-a").setTopics(topics));
        groups.add(new DescribeShareGroupOffsetsResponseData.DescribeShareGroupOffsetsResponseGroup()
            .setGroupId("missing").setTopics(List.of()).setErrorCode((short) 69)
            .setErrorMessage("Group missing not found."));
        return data.setThrottleTimeMs(250).setGroups(groups);
    }

    public static void main(String[] args) throws Exception {
        for (short v = 0; v <= 1; v++) {
            for (boolean full : new boolean[] {false, true}) {
                String kase = full ? "full_01" : "min_00";
                DescribeShareGroupOffsetsRequestData req = request(full);
                line("DescribeShareGroupOffsetsRequest", v, kase, req,
                     DescribeShareGroupOffsetsRequestDataJsonConverter.write(req, v));
                // Lag is v1+ and ignorable: Java drops it when writing v0
                DescribeShareGroupOffsetsResponseData res = response(full);
                line("DescribeShareGroupOffsetsResponse", v, kase, res,
                     DescribeShareGroupOffsetsResponseDataJsonConverter.write(res, v));
            }
        }
    }
}
