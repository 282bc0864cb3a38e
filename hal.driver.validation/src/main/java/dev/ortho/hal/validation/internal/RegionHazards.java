package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.TreeMap;

/**
 * Finds write hazards inside one barrier region of a command buffer being recorded: the commands
 * between two barriers carry no order among themselves (IREE's block command buffers tile every
 * command of a region across the workers at once), so a transfer that writes bytes another
 * transfer of the same region reads or writes is a data race whose result depends on scheduling.
 * IREE does not check this; a program that does it gets whatever the workers produce.
 *
 * <p>What counts as an access: a fill, update or copy target is a write; a copy source is a read.
 * Dispatches are not tracked: a binding names the range a dispatch may touch, not what it touches
 * or whether it writes, and IREE's compiler relies on that — a program it compiled (one of the
 * models in {@code models/vmfb}) binds a whole resource range to a dispatch and fills the part the
 * dispatch does not use in the same region. Accesses are keyed by allocation (direct references:
 * the inner buffer's allocated buffer and its byte range there) or by binding-table slot (indirect
 * references: the range inside the slot; slots are compared only with the same slot, since what
 * they alias is known only at submission). An {@code executionBarrier} or a {@code waitEvents}
 * starts a new region.
 *
 * <p>Cost: per key, the writes of a region are disjoint (an overlap is refused), and the reads
 * are kept as their union, both in sorted maps: a check is O(log n) in the accesses to
 * that allocation or slot. Not thread-safe; owned by the one recording thread.
 */
final class RegionHazards {
    /** What a recorded access does to its range. */
    enum Kind {
        READ, WRITE
    }

    /** Disjoint byte ranges of one key: start → {end, index of the first command that touched it}. */
    private static final class Ranges {
        final TreeMap<Long, long[]> writes = new TreeMap<>();
        final TreeMap<Long, long[]> reads = new TreeMap<>();
    }

    private final Map<Object, Ranges> byKey = new HashMap<>();
    /** The recording call of every command of the current region, by index in the region. */
    private final ArrayList<String> commands = new ArrayList<>();

    /** Starts a new region: nothing recorded before can race with what follows. */
    void barrier() {
        byKey.clear();
        commands.clear();
    }

    /**
     * Numbers the next command of the region; call once per command after its {@link #check}s
     * passed and before its {@link #record}s.
     */
    int command(String call) {
        commands.add(call);
        return commands.size() - 1;
    }

    /**
     * Checks that {@code [start, end)} of {@code key} does not race with an earlier command of the
     * region; INVALID_ARGUMENT naming both commands and ranges if it does. Nothing is recorded;
     * call {@link #record} once every check of the command passed.
     */
    void check(String call, String argument, Object key, long start, long end, Kind kind) {
        Ranges ranges = byKey.get(key);
        if (ranges == null || end <= start) {
            return;
        }
        long[] hit = overlapping(ranges.writes, start, end);
        boolean written = hit != null;
        if (!written && kind == Kind.WRITE) {
            hit = overlapping(ranges.reads, start, end);
        }
        if (hit == null) {
            return;
        }
        String earlier = commands.get((int) hit[1]) + " (command " + hit[1] + " of this barrier region)";
        String where = key instanceof Integer slot ? "binding slot " + slot + " range" : "allocation range";
        throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, argument, where + " [" + start + ", " + end + ") "
                + (kind == Kind.WRITE ? "is written" : "is read") + " while [" + hit[2] + ", " + hit[0] + ") is "
                + (written ? "written by " + earlier : "read by commands from " + earlier)
                + "; a region's commands may run concurrently, so record an executionBarrier between them");
    }

    /** Records a checked access of {@code command} (from {@link #command}). */
    void record(Object key, long start, long end, Kind kind, int command) {
        if (end <= start) {
            return;
        }
        Ranges ranges = byKey.computeIfAbsent(key, k -> new Ranges());
        if (kind == Kind.WRITE) {
            ranges.writes.put(start, new long[] {end, command, start});
        } else {
            union(ranges.reads, start, end, command);
        }
    }

    /** The entry of disjoint {@code map} overlapping {@code [start, end)}, or null. */
    private static long[] overlapping(TreeMap<Long, long[]> map, long start, long end) {
        Map.Entry<Long, long[]> below = map.floorEntry(start);
        if (below != null && below.getValue()[0] > start) {
            return below.getValue();
        }
        Map.Entry<Long, long[]> above = map.ceilingEntry(start);
        return above != null && above.getKey() < end ? above.getValue() : null;
    }

    /** Adds {@code [start, end)} to the disjoint union {@code map}, merging what it touches. */
    private static void union(TreeMap<Long, long[]> map, long start, long end, int command) {
        long from = start;
        long to = end;
        long first = command;
        Map.Entry<Long, long[]> below = map.floorEntry(start);
        if (below != null && below.getValue()[0] >= start) {
            from = below.getKey();
            to = Math.max(to, below.getValue()[0]);
            first = Math.min(first, below.getValue()[1]);
            map.remove(below.getKey());
        }
        Map.Entry<Long, long[]> next = map.ceilingEntry(from);
        while (next != null && next.getKey() <= to) {
            to = Math.max(to, next.getValue()[0]);
            first = Math.min(first, next.getValue()[1]);
            map.remove(next.getKey());
            next = map.ceilingEntry(from);
        }
        map.put(from, new long[] {to, first, from});
    }
}
