package dev.ortho.task;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.BitSet;
import org.junit.jupiter.api.Test;

class TopologyTest {
    private static Path resource(String name) {
        try {
            return Path.of(TopologyTest.class.getResource("/" + name).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static BitSet bits(int... indices) {
        BitSet b = new BitSet();
        for (int i : indices) {
            b.set(i);
        }
        return b;
    }

    @Test
    void sysfsSmtMachineHasOneGroupPerCoreAndL2Sharing() {
        Topology t = Topology.fromSysfs(resource("sysfs/smt4"));
        assertEquals(4, t.groupCount());
        assertEquals(0, t.groups().get(0).processorId());
        assertEquals(3, t.groups().get(3).processorId());
        assertEquals(bits(0, 1), t.groups().get(0).sharingMask());
        assertEquals(bits(2, 3), t.groups().get(3).sharingMask());
        assertEquals("0,1|2,3", t.format());
    }

    @Test
    void sysfsClustersShareL3AndOfflineCpusAreIgnored() {
        Topology t = Topology.fromSysfs(resource("sysfs/clusters"));
        assertEquals(4, t.groupCount());
        assertEquals(bits(0, 1), t.groups().get(1).sharingMask());
        assertEquals(bits(2, 3), t.groups().get(2).sharingMask());
        assertEquals(t, Topology.parse(t.format()));
    }

    @Test
    void malformedSysfsIsDataLoss() {
        StatusException e = assertThrows(StatusException.class, () -> Topology.fromSysfs(resource("sysfs/malformed")));
        assertEquals(StatusCode.DATA_LOSS, e.code());
        assertEquals(StatusCode.NOT_FOUND,
                assertThrows(StatusException.class, () -> Topology.fromSysfs(Path.of("/nonexistent/cpu"))).code());
    }

    @Test
    void cpuinfoDedupesHyperthreads() {
        Topology t = Topology.fromCpuinfo(resource("cpuinfo/smt2"));
        assertEquals(2, t.groupCount());
        assertEquals(1, t.groups().get(1).processorId());
        assertEquals(2, Topology.fromCpuinfo(resource("cpuinfo/plain")).groupCount());
        assertEquals(StatusCode.DATA_LOSS,
                assertThrows(StatusException.class, () -> Topology.fromCpuinfo(resource("cpuinfo/empty"))).code());
    }

    @Test
    void detectNeverFails() {
        assertTrue(Topology.detect().groupCount() >= 1);
    }

    @Test
    void specRoundTrips() {
        for (String spec : new String[] {"1", "4", "256", "0,1|2,3", "5", "7,3", "0|1|2"}) {
            assertEquals(spec, Topology.parse(spec).format(), spec);
        }
        assertEquals(4, Topology.parse(" 4 ").groupCount());
        Topology t = Topology.parse("0,2|4,6");
        assertEquals(bits(2, 3), t.groups().get(3).sharingMask());
        assertEquals(4, t.groups().get(2).processorId());
    }

    @Test
    void badSpecsAreInvalidArgument() {
        for (String spec : new String[] {"", "0", "257", "-1", "a", "1,,2", "1|", "1,1", "99999999999"}) {
            StatusException e = assertThrows(StatusException.class, () -> Topology.parse(spec), spec);
            assertEquals(StatusCode.INVALID_ARGUMENT, e.code(), spec);
        }
    }

    @Test
    void executorUsesTopologyGroupCount() {
        try (Executor e = Executor.builder().topology(Topology.parse("3")).spinNanos(0).build()) {
            assertEquals(3, e.workerCount());
        }
    }
}
