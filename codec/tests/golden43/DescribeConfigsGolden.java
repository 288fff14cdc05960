// Golden bodies of DescribeConfigs (api key 32) v1-4 made by Apache Kafka 4.3.1's own generated
// message classes (kafka-clients-4.3.1.jar, Kafka 26b251a451): for each case and version, the
// bytes Java writes and Java's JSON view (JsonConverter) of the message read back from those
// bytes, one JSON line each on stdout. Run by make_golden.sh; the output is describe_configs.jsonl.
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.apache.kafka.common.message.DescribeConfigsRequestData;
import org.apache.kafka.common.message.DescribeConfigsRequestDataJsonConverter;
import org.apache.kafka.common.message.DescribeConfigsResponseData;
import org.apache.kafka.common.message.DescribeConfigsResponseDataJsonConverter;
import org.apache.kafka.common.protocol.ByteBufferAccessor;
import org.apache.kafka.common.protocol.Message;
import org.apache.kafka.common.protocol.ObjectSerializationCache;

public class DescribeConfigsGolden {
    static final ObjectMapper MAPPER = new ObjectMapper();

    static byte[] bytes(Message m, short v) {
        ObjectSerializationCache cache = new ObjectSerializationCache();
        ByteBuffer buf = ByteBuffer.allocate(m.size(cache, v));
        m.write(new ByteBufferAccessor(buf), cache, v);
        return buf.array();
    }

    static String hex(byte[] data) {
        StringBuilder out = new StringBuilder();
        for (byte b : data) out.append(String.format("%02x", b));
        return out.toString();
    }

    static void line(String type, short v, String kase, byte[] data, JsonNode value) throws Exception {
        ObjectNode row = MAPPER.createObjectNode();
        row.put("kind", "api").put("type", type).put("version", v).put("case", kase)
            .put("api_key", 32).put("flexible", v >= 4);
        row.set("value", value);
        row.put("hex", hex(data));
        System.out.println(MAPPER.writeValueAsString(row));
    }

    static DescribeConfigsRequestData request(boolean full, short v) {
        DescribeConfigsRequestData data = new DescribeConfigsRequestData();
        if (!full) return data;
        List<DescribeConfigsRequestData.DescribeConfigsResource> resources = new ArrayList<>();
        resources.add(new DescribeConfigsRequestData.DescribeConfigsResource()
            .setResourceType((byte) 4).setResourceName("1")
            .setConfigurationKeys(Arrays.asList("group.consumer.heartbeat.interval.ms",
                                                "group.consumer.session.timeout.ms")));
        resources.add(new DescribeConfigsRequestData.DescribeConfigsResource()
            .setResourceType((byte) 32).setResourceName("orders-g").setConfigurationKeys(null));
        resources.add(new DescribeConfigsRequestData.DescribeConfigsResource()
            .setResourceType((byte) 2).setResourceName("\u00e7\u6f22\ud834\udd1e")
            .setConfigurationKeys(List.of()));
        // IncludeDocumentation is v3+ and not ignorable: Java refuses true below v3
        return data.setResources(resources).setIncludeSynonyms(true).setIncludeDocumentation(v >= 3);
    }

    static DescribeConfigsResponseData response(boolean full) {
        DescribeConfigsResponseData data = new DescribeConfigsResponseData();
        if (!full) return data;
        List<DescribeConfigsResponseData.DescribeConfigsSynonym> synonyms = new ArrayList<>();
        synonyms.add(new DescribeConfigsResponseData.DescribeConfigsSynonym()
            .setName("group.consumer.heartbeat.interval.ms").setValue("500").setSource((byte) 4));
        synonyms.add(new DescribeConfigsResponseData.DescribeConfigsSynonym()
            .setName("group.consumer.heartbeat.interval.ms").setValue(null).setSource((byte) 5));
        List<DescribeConfigsResponseData.DescribeConfigsResourceResult> configs = new ArrayList<>();
        configs.add(new DescribeConfigsResponseData.DescribeConfigsResourceResult()
            .setName("group.consumer.heartbeat.interval.ms").setValue("500").setReadOnly(false)
            .setConfigSource((byte) 4).setIsSensitive(false).setSynonyms(synonyms)
            .setConfigType((byte) 3).setDocumentation("The heartbeat interval given to the members."));
        configs.add(new DescribeConfigsResponseData.DescribeConfigsResourceResult()
            .setName("ssl.key.password").setValue(null).setReadOnly(true)
            .setConfigSource((byte) -1).setIsSensitive(true).setSynonyms(List.of())
            .setConfigType((byte) 9).setDocumentation(null));
        List<DescribeConfigsResponseData.DescribeConfigsResult> results = new ArrayList<>();
        results.add(new DescribeConfigsResponseData.DescribeConfigsResult()
            .setErrorCode((short) 0).setErrorMessage(null).setResourceType((byte) 4)
            .setResourceName("1").setConfigs(configs));
        results.add(new DescribeConfigsResponseData.DescribeConfigsResult()
            .setErrorCode((short) 30).setErrorMessage("Group authorization failed.")
            .setResourceType((byte) 32).setResourceName("orders-g").setConfigs(List.of()));
        return data.setThrottleTimeMs(250).setResults(results);
    }

    public static void main(String[] args) throws Exception {
        for (short v = 1; v <= 4; v++) {
            for (boolean full : new boolean[] {false, true}) {
                String kase = full ? "full_01" : "min_00";
                byte[] req = bytes(request(full, v), v);
                line("DescribeConfigsRequest", v, kase, req, DescribeConfigsRequestDataJsonConverter.write(
                    new DescribeConfigsRequestData(new ByteBufferAccessor(ByteBuffer.wrap(req)), v), v));
                // ConfigType and Documentation are v3+ and ignorable: Java drops them below v3
                byte[] res = bytes(response(full), v);
                line("DescribeConfigsResponse", v, kase, res, DescribeConfigsResponseDataJsonConverter.write(
                    new DescribeConfigsResponseData(new ByteBufferAccessor(ByteBuffer.wrap(res)), v), v));
            }
        }
    }
}
