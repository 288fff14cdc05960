/*
 * ServerAssignorStep: Apache Kafka's KIP-848 server assignors (UniformAssignor, RangeAssignor), one
 * timed call at a time on request, so bench/bench_server_assignors.py can alternate Java's calls with
 * Python's in one run (same moments, same machine load).
 *
 *   java -cp "classes:shared/java/coordinator/lib/*" ServerAssignorStep
 *
 * The cases and their inputs are ServerAssignorPerf's (shared/java/coordinator, in the oracle jar:
 * the same package, whose builder this calls, so there is one definition of U1-U4, R1-R2 in Java):
 * topics in a real MetadataImage, a fresh GroupSpecImpl per call built outside the timing.
 * Commands on stdin, one per line; one answer line each on stdout, flushed:
 *   build CASE SCALE   -> "built CASE MEMBERS ASSIGNED" (after one warm-up call)
 *   prepare            -> "ready": a fresh spec is built and System.gc() run (outside the timing)
 *   go                 -> "call WALL_NS CPU_NS GCS PREEMPTED": the timed call on the prepared
 *                         spec (GCS: collections during it; CPU is the calling thread's;
 *                         PREEMPTED: the thread's involuntary context switches meanwhile,
 *                         read from /proc/thread-self/status around the timed region)
 *   quit               -> exits
 * The timed call starts when "go" wakes the thread from its read, as a coordinator thread starts
 * from its event queue (and as the Python side's worker does).
 */

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import org.apache.kafka.coordinator.group.api.assignor.GroupAssignment;
import org.apache.kafka.coordinator.group.api.assignor.GroupSpec;
import org.apache.kafka.coordinator.group.api.assignor.MemberAssignment;
import org.apache.kafka.coordinator.group.api.assignor.SubscriptionType;

public final class ServerAssignorStep {
    /** Keeps results reachable so that the JIT cannot drop the calls. */
    static volatile Object sink;

    static long gcCount() {
        long n = 0;
        for (GarbageCollectorMXBean gc : ManagementFactory.getGarbageCollectorMXBeans()) {
            n += Math.max(0, gc.getCollectionCount());
        }
        return n;
    }

    /** This thread's involuntary context switches so far (-1 where /proc does not say). */
    static long preempted() {
        try {
            for (String line : Files.readAllLines(Path.of("/proc/thread-self/status"))) {
                if (line.startsWith("nonvoluntary_ctxt_switches:")) {
                    return Long.parseLong(line.substring(line.indexOf(':') + 1).trim());
                }
            }
        } catch (Exception e) {
            // not Linux
        }
        return -1;
    }

    static long assigned(ServerAssignorPerf.Group g, GroupAssignment result) {
        long n = 0;
        for (String m : g.memberIds) {
            MemberAssignment a = result.members().get(m);
            if (a != null) for (Set<Integer> ps : a.partitions().values()) n += ps.size();
        }
        return n;
    }

    public static void main(String[] args) throws Exception {
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        if (!threads.isThreadCpuTimeEnabled()) threads.setThreadCpuTimeEnabled(true);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        ServerAssignorPerf.Group group = null;
        SubscriptionType type = null;
        GroupSpec spec = null;
        String line;
        while ((line = in.readLine()) != null) {
            String[] words = line.trim().split("\\s+");
            switch (words[0]) {
                case "build" -> {
                    ServerAssignorPerf.CaseDef c = ServerAssignorPerf.CASES.get(words[1]);
                    if (c == null) throw new IllegalArgumentException("unknown case " + words[1]);
                    group = ServerAssignorPerf.build(c, Double.parseDouble(words[2]));
                    type = group.subscriptionType();
                    GroupAssignment warm = group.assign(group.spec(type));
                    System.out.printf("built %s %d %d%n", words[1], group.memberIds.size(), assigned(group, warm));
                }
                case "prepare" -> {
                    spec = group.spec(type);
                    System.gc();
                    System.out.println("ready");
                }
                case "go" -> {
                    long g0 = gcCount();
                    long n0 = preempted();
                    long c0 = threads.getCurrentThreadCpuTime();
                    long w0 = System.nanoTime();
                    GroupAssignment result = group.assign(spec);
                    long w1 = System.nanoTime();
                    long c1 = threads.getCurrentThreadCpuTime();
                    long n1 = preempted();
                    sink = result;
                    spec = null;
                    System.out.printf("call %d %d %d %d%n", w1 - w0, c1 - c0, gcCount() - g0,
                        n0 < 0 ? -1 : n1 - n0);
                }
                case "quit" -> {
                    return;
                }
                default -> throw new IllegalArgumentException("unknown command " + line);
            }
            System.out.flush();
        }
    }
}
