package dev.ortho.task.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.task.Topology;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.BitSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Builds {@link Topology} values from sysfs, {@code /proc/cpuinfo} and spec strings (IREE's
 * {@code topology_sysfs.c}, {@code topology_cpuinfo.c}, {@code topology_fallback.c}).
 */
public final class TopologyReader {
    private static final Logger LOG = LoggerFactory.getLogger(TopologyReader.class);

    private TopologyReader() {
    }

    /** sysfs, then cpuinfo, then availableProcessors; never fails. */
    public static Topology detect(Path sysfsCpuRoot, Path cpuinfo) {
        try {
            return fromSysfs(sysfsCpuRoot);
        } catch (StatusException e) {
            LOG.debug("sysfs topology unavailable: {}", e.toString());
        }
        try {
            return fromCpuinfo(cpuinfo);
        } catch (StatusException e) {
            LOG.debug("cpuinfo topology unavailable: {}", e.toString());
        }
        return Topology.ofGroupCount(Math.clamp(Runtime.getRuntime().availableProcessors(), 1, Topology.MAX_GROUPS));
    }

    /** See {@link Topology#fromSysfs}. */
    public static Topology fromSysfs(Path root) {
        BitSet online = parseCpuList(readRequired(root.resolve("online")), root.resolve("online"));
        // core leader (lowest sibling) for every online cpu; groups are the leaders in cpu order
        TreeMap<Integer, Integer> leaderOf = new TreeMap<>();
        for (int cpu = online.nextSetBit(0); cpu >= 0; cpu = online.nextSetBit(cpu + 1)) {
            Path siblings = root.resolve("cpu" + cpu).resolve("topology").resolve("thread_siblings_list");
            BitSet sib = Files.exists(siblings) ? parseCpuList(readRequired(siblings), siblings) : new BitSet();
            sib.set(cpu);
            sib.and(online);
            leaderOf.put(cpu, sib.nextSetBit(0));
        }
        List<Integer> leaders = leaderOf.values().stream().distinct().sorted().toList();
        if (leaders.size() > Topology.MAX_GROUPS) {
            leaders = leaders.subList(0, Topology.MAX_GROUPS);
        }
        List<Topology.Group> groups = new ArrayList<>(leaders.size());
        for (int g = 0; g < leaders.size(); g++) {
            int cpu = leaders.get(g);
            BitSet mask = new BitSet();
            mask.set(g);
            Path cacheDir = root.resolve("cpu" + cpu).resolve("cache");
            for (int k = 0; Files.isDirectory(cacheDir.resolve("index" + k)); k++) {
                Path idx = cacheDir.resolve("index" + k);
                int level = parseInt(readRequired(idx.resolve("level")), idx.resolve("level"));
                Path typeFile = idx.resolve("type");
                String type = Files.exists(typeFile) ? readRequired(typeFile) : "Unified";
                Path sharedFile = idx.resolve("shared_cpu_list");
                if ((level != 2 && level != 3) || type.equals("Instruction") || !Files.exists(sharedFile)) {
                    continue;
                }
                BitSet shared = parseCpuList(readRequired(sharedFile), sharedFile);
                for (int c = shared.nextSetBit(0); c >= 0; c = shared.nextSetBit(c + 1)) {
                    Integer leader = leaderOf.get(c);
                    int other = leader == null ? -1 : leaders.indexOf(leader);
                    if (other >= 0) {
                        mask.set(other);
                    }
                }
            }
            groups.add(new Topology.Group(g, cpu, mask));
        }
        return new Topology(groups);
    }

    /** See {@link Topology#fromCpuinfo}. */
    public static Topology fromCpuinfo(Path cpuinfo) {
        List<String> lines;
        try {
            lines = Files.readAllLines(cpuinfo);
        } catch (IOException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot read " + cpuinfo + ": " + e.getMessage(), e);
        }
        Set<String> cores = new LinkedHashSet<>();
        List<Integer> leaders = new ArrayList<>();
        int processor = -1;
        String physical = "";
        String core = null;
        for (String raw : lines) {
            String line = raw.strip();
            int colon = line.indexOf(':');
            if (line.isEmpty() || colon < 0) {
                if (processor >= 0) {
                    addCore(cores, leaders, processor, physical, core);
                }
                processor = -1;
                physical = "";
                core = null;
                continue;
            }
            String key = line.substring(0, colon).strip();
            String value = line.substring(colon + 1).strip();
            switch (key) {
                case "processor" -> processor = parseInt(value, cpuinfo);
                case "physical id" -> physical = value;
                case "core id" -> core = value;
                default -> { }
            }
        }
        if (processor >= 0) {
            addCore(cores, leaders, processor, physical, core);
        }
        if (leaders.isEmpty()) {
            throw new StatusException(StatusCode.DATA_LOSS, cpuinfo + " lists no processor");
        }
        List<Topology.Group> groups = new ArrayList<>();
        for (int g = 0; g < Math.min(leaders.size(), Topology.MAX_GROUPS); g++) {
            BitSet self = new BitSet();
            self.set(g);
            groups.add(new Topology.Group(g, leaders.get(g), self));
        }
        return new Topology(groups);
    }

    private static void addCore(Set<String> cores, List<Integer> leaders, int processor, String physical, String core) {
        String key = core == null ? "p" + processor : physical + "/" + core;
        if (cores.add(key)) {
            leaders.add(processor);
        }
    }

    /** See {@link Topology#parse}. */
    public static Topology parseSpec(String spec) {
        String s = spec.strip();
        if (s.isEmpty()) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "empty topology spec");
        }
        if (s.indexOf(',') < 0 && s.indexOf('|') < 0) {
            int count = parseSpecInt(s, spec);
            if (count < 1 || count > Topology.MAX_GROUPS) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT,
                        "topology spec '" + spec + "': group count " + count + " outside [1, " + Topology.MAX_GROUPS + "]");
            }
            return Topology.ofGroupCount(count);
        }
        List<int[]> clusters = new ArrayList<>();
        BitSet seen = new BitSet();
        for (String cluster : s.split("\\|", -1)) {
            String[] ids = cluster.split(",", -1);
            int[] cpus = new int[ids.length];
            for (int i = 0; i < ids.length; i++) {
                cpus[i] = parseSpecInt(ids[i].strip(), spec);
                if (seen.get(cpus[i])) {
                    throw new StatusException(StatusCode.INVALID_ARGUMENT,
                            "topology spec '" + spec + "' names processor " + cpus[i] + " twice");
                }
                seen.set(cpus[i]);
            }
            clusters.add(cpus);
        }
        List<Topology.Group> groups = new ArrayList<>();
        int g = 0;
        for (int[] cluster : clusters) {
            BitSet mask = new BitSet();
            mask.set(g, g + cluster.length);
            for (int cpu : cluster) {
                groups.add(new Topology.Group(g++, cpu, mask));
            }
        }
        if (groups.size() > Topology.MAX_GROUPS) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "topology spec '" + spec + "' has " + groups.size() + " groups, limit " + Topology.MAX_GROUPS);
        }
        return new Topology(groups);
    }

    /** See {@link Topology#format}. */
    public static String formatSpec(Topology t) {
        List<Topology.Group> gs = t.groups();
        boolean anyKnown = gs.stream().anyMatch(x -> x.processorId() >= 0);
        if (!anyKnown) {
            return Integer.toString(gs.size());
        }
        StringBuilder sb = new StringBuilder();
        BitSet previous = null;
        for (Topology.Group g : gs) {
            BitSet mask = g.sharingMask();
            if (previous != null) {
                sb.append(mask.equals(previous) ? ',' : '|');
            }
            sb.append(g.processorId());
            previous = mask;
        }
        return sb.toString();
    }

    /** Parses a Linux cpu list such as {@code 0-3,8,10-11}. */
    static BitSet parseCpuList(String text, Path source) {
        BitSet set = new BitSet();
        String s = text.strip();
        if (s.isEmpty()) {
            return set;
        }
        for (String part : s.split(",")) {
            int dash = part.indexOf('-');
            int lo = parseInt(dash < 0 ? part : part.substring(0, dash), source);
            int hi = dash < 0 ? lo : parseInt(part.substring(dash + 1), source);
            if (lo < 0 || hi < lo || hi >= 65536) {
                throw new StatusException(StatusCode.DATA_LOSS, source + ": bad cpu range '" + part + "'");
            }
            set.set(lo, hi + 1);
        }
        return set;
    }

    private static int parseInt(String text, Path source) {
        try {
            return Integer.parseInt(text.strip());
        } catch (NumberFormatException e) {
            throw new StatusException(StatusCode.DATA_LOSS, source + ": '" + text.strip() + "' is not a number");
        }
    }

    private static int parseSpecInt(String text, String spec) {
        try {
            int v = Integer.parseInt(text);
            if (v < 0) {
                throw new NumberFormatException();
            }
            return v;
        } catch (NumberFormatException e) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "topology spec '" + spec + "': '" + text + "' is not a non-negative integer");
        }
    }

    private static String readRequired(Path file) {
        try {
            return Files.readString(file).strip();
        } catch (IOException e) {
            throw new StatusException(StatusCode.NOT_FOUND, "cannot read " + file + ": " + e.getMessage(), e);
        }
    }
}
