package dev.ortho.task;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.internal.TopologyReader;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.List;
import java.util.Objects;

/**
 * The CPU groups an executor creates workers for (IREE's {@code iree_task_topology_t}): one
 * group per physical core by default, each naming a logical processor and the groups it shares
 * a cache with (constructive sharing: the groups sharing its L2 or L3).
 *
 * <p>Immutable and thread-safe. Build one with {@link #detect()}, from a sysfs or
 * {@code /proc/cpuinfo} tree, with {@link #ofGroupCount(int)}, or by {@link #parse(String)}ing a
 * spec string (e.g. from configuration).
 *
 * <p>Spec syntax (our own; IREE has none): either a plain group count ({@code "4"}: four groups,
 * processors unknown) or processor ids separated by commas, with {@code |} separating clusters
 * of groups that share a cache ({@code "0,1|2,3"}). {@link #format()} produces the same syntax.
 */
public final class Topology {
    /** Largest number of groups (IREE's default {@code IREE_TASK_TOPOLOGY_MAX_GROUP_COUNT}). */
    public static final int MAX_GROUPS = 256;

    /**
     * One group: one worker.
     *
     * @param index position in the topology
     * @param processorId logical CPU id, or -1 if unknown
     * @param sharingMask indices of the groups sharing a cache with this one (including itself)
     */
    public record Group(int index, int processorId, BitSet sharingMask) {
        /** Copies the mask so the record stays immutable. */
        public Group {
            sharingMask = (BitSet) sharingMask.clone();
        }

        /** A copy of the sharing mask. */
        @Override
        public BitSet sharingMask() {
            return (BitSet) sharingMask.clone();
        }
    }

    private final List<Group> groups;

    /**
     * Creates a topology from groups whose indices are 0..n-1 in order.
     *
     * @throws StatusException INVALID_ARGUMENT if empty, above {@link #MAX_GROUPS}, or misnumbered
     */
    public Topology(List<Group> groups) {
        if (groups.isEmpty() || groups.size() > MAX_GROUPS) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "topology group count " + groups.size() + " outside [1, " + MAX_GROUPS + "]");
        }
        for (int i = 0; i < groups.size(); i++) {
            if (groups.get(i).index() != i) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "topology group " + i + " has index " + groups.get(i).index());
            }
        }
        this.groups = List.copyOf(groups);
    }

    /** {@code count} groups with unknown processors, each sharing with itself only. */
    public static Topology ofGroupCount(int count) {
        if (count < 1 || count > MAX_GROUPS) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "topology group count " + count + " outside [1, " + MAX_GROUPS + "]");
        }
        List<Group> gs = new ArrayList<>(count);
        for (int i = 0; i < count; i++) {
            BitSet self = new BitSet();
            self.set(i);
            gs.add(new Group(i, -1, self));
        }
        return new Topology(gs);
    }

    /**
     * Detects the machine's topology: Linux sysfs ({@code /sys/devices/system/cpu}), then
     * {@code /proc/cpuinfo}, then {@link Runtime#availableProcessors()}. Never fails.
     */
    public static Topology detect() {
        return TopologyReader.detect(Path.of("/sys/devices/system/cpu"), Path.of("/proc/cpuinfo"));
    }

    /**
     * Reads a sysfs cpu directory (the layout of {@code /sys/devices/system/cpu}): online cpus,
     * thread siblings (one group per physical core) and cache sharing.
     *
     * @throws StatusException NOT_FOUND if the tree lacks the {@code online} list,
     *     DATA_LOSS if a file is malformed
     */
    public static Topology fromSysfs(Path cpuRoot) {
        return TopologyReader.fromSysfs(cpuRoot);
    }

    /**
     * Reads a {@code /proc/cpuinfo} file: one group per distinct (physical id, core id), or per
     * processor when those are absent. No cache sharing is known.
     *
     * @throws StatusException NOT_FOUND if unreadable, DATA_LOSS if it lists no processor
     */
    public static Topology fromCpuinfo(Path cpuinfo) {
        return TopologyReader.fromCpuinfo(cpuinfo);
    }

    /**
     * Parses a spec string (see the class comment).
     *
     * @throws StatusException INVALID_ARGUMENT naming the bad token
     */
    public static Topology parse(String spec) {
        return TopologyReader.parseSpec(Objects.requireNonNull(spec, "spec"));
    }

    /** The groups, by index. */
    public List<Group> groups() {
        return groups;
    }

    /** Number of groups (the default worker count). */
    public int groupCount() {
        return groups.size();
    }

    /**
     * Formats as a spec string that {@link #parse} reads back to an equal topology. A topology
     * whose processors are all unknown and that has no sharing formats as its count.
     */
    public String format() {
        return TopologyReader.formatSpec(this);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Topology t && t.groups.equals(groups);
    }

    @Override
    public int hashCode() {
        return groups.hashCode();
    }

    @Override
    public String toString() {
        return "Topology[" + format() + "]";
    }
}
