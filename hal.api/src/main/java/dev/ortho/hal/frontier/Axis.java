package dev.ortho.hal.frontier;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import java.util.Locale;

/**
 * Encodes and decodes axes: 64-bit, never-reused identifiers of timeline participants (a
 * queue, a collective channel, a host context). Hot paths carry axes as raw {@code long}s; this
 * class only holds static helpers and constants and is never instantiated.
 *
 * <p>The bit layout is IREE's {@code iree_async_axis_t}, bit for bit:
 *
 * <pre>
 *   bits 63-56  session epoch   (8)   distinguishes sessions, prevents ABA across them
 *   bits 55-48  machine index   (8)   which machine in the cluster
 *   bits 47-40  domain          (8)   QUEUE=0, COLLECTIVE=1, EPILOGUE=2, HOST=3
 *   bits 39-0   ordinal         (40)  structured by domain:
 *                 QUEUE       [39:32] device index, [31:24] queue index, [23:0] reserved (zero)
 *                 COLLECTIVE  [39:0]  channel id
 *                 HOST        [39:0]  context id
 *                 EPILOGUE    [39:0]  unstructured
 * </pre>
 *
 * For example session 1, machine 3: queue 0 of device 1 is {@code 0x0103000100000000}, collective
 * channel 42 is {@code 0x010301000000002A}, host context 7 is {@code 0x0103030000000007}.
 *
 * <p>An axis is <em>valid</em> when its domain is one of the four above and, in the queue domain,
 * its reserved ordinal bits are zero. Unlike IREE's {@code iree_async_axis_make}, which masks
 * oversized components silently, the builders here reject them.
 *
 * <p>Text form (used by {@link Frontier#toString()} and {@link Frontier#parse}): an optional
 * {@code s<session>.} and {@code m<machine>.} prefix (printed only when non-zero), then
 * {@code q<device>.<queue>}, {@code c<channel>}, {@code h<context>} or {@code e<ordinal>}, all in
 * decimal: {@code q0.1}, {@code s1.m3.c42}. The raw form {@code 0x<hex>} is also accepted.
 *
 * <p>All methods are pure functions and thread-safe; none allocates except the text methods.
 */
public final class Axis {

    /** Domain of hardware or virtual device queues ({@code IREE_ASYNC_CAUSAL_DOMAIN_QUEUE}). */
    public static final int DOMAIN_QUEUE = 0;
    /** Domain of collective channels ({@code IREE_ASYNC_CAUSAL_DOMAIN_COLLECTIVE}). */
    public static final int DOMAIN_COLLECTIVE = 1;
    /** Domain of epilogue kernel timelines ({@code IREE_ASYNC_CAUSAL_DOMAIN_EPILOGUE}). */
    public static final int DOMAIN_EPILOGUE = 2;
    /** Domain of host threads or execution contexts ({@code IREE_ASYNC_CAUSAL_DOMAIN_HOST}). */
    public static final int DOMAIN_HOST = 3;

    /** Mask of the 40 ordinal bits. */
    public static final long ORDINAL_MASK = 0xFF_FFFF_FFFFL;
    /** Mask of the ordinal bits a queue-domain axis must leave zero ({@code [23:0]}). */
    public static final long QUEUE_RESERVED_MASK = 0xFF_FFFFL;

    private static final int SESSION_SHIFT = 56;
    private static final int MACHINE_SHIFT = 48;
    private static final int DOMAIN_SHIFT = 40;
    private static final int DEVICE_SHIFT = 32;
    private static final int QUEUE_SHIFT = 24;
    private static final char[] DOMAIN_LETTERS = {'q', 'c', 'e', 'h'};

    private Axis() {}

    /**
     * Builds an axis from its four components.
     *
     * @throws StatusException OUT_OF_RANGE naming the component if {@code session} or
     *     {@code machine} is outside [0, 255] or {@code ordinal} outside [0, 2^40);
     *     INVALID_ARGUMENT if {@code domain} is not one of the four domains or a queue-domain
     *     ordinal sets reserved bits
     */
    public static long make(int session, int machine, int domain, long ordinal) {
        checkByte("session epoch", session);
        checkByte("machine index", machine);
        if ((ordinal & ~ORDINAL_MASK) != 0) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "axis ordinal 0x" + Long.toHexString(ordinal) + " exceeds 40 bits");
        }
        if (domain < DOMAIN_QUEUE || domain > DOMAIN_HOST) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "axis domain " + domain + " is not QUEUE(0), COLLECTIVE(1), EPILOGUE(2) or HOST(3)");
        }
        return validate(((long) session << SESSION_SHIFT) | ((long) machine << MACHINE_SHIFT)
                | ((long) domain << DOMAIN_SHIFT) | ordinal);
    }

    /**
     * Builds the queue-domain axis of queue {@code queue} on device {@code device}
     * ({@code iree_async_axis_make_queue}).
     *
     * @throws StatusException OUT_OF_RANGE naming the component if any argument is outside
     *     [0, 255]
     */
    public static long queue(int session, int machine, int device, int queue) {
        checkByte("device index", device);
        checkByte("queue index", queue);
        return make(session, machine, DOMAIN_QUEUE,
                ((long) device << DEVICE_SHIFT) | ((long) queue << QUEUE_SHIFT));
    }

    /**
     * Builds the collective-domain axis of channel {@code channelId}; all participants of the
     * channel share it (see {@link ChannelAxis}).
     *
     * @throws StatusException OUT_OF_RANGE naming the component if a component exceeds its bits
     */
    public static long collective(int session, int machine, long channelId) {
        return make(session, machine, DOMAIN_COLLECTIVE, channelId);
    }

    /**
     * Builds the host-domain axis of host thread or context {@code contextId}.
     *
     * @throws StatusException OUT_OF_RANGE naming the component if a component exceeds its bits
     */
    public static long host(int session, int machine, long contextId) {
        return make(session, machine, DOMAIN_HOST, contextId);
    }

    /** The session epoch, bits 63-56. */
    public static int session(long axis) {
        return (int) (axis >>> SESSION_SHIFT);
    }

    /** The machine index, bits 55-48. */
    public static int machine(long axis) {
        return (int) (axis >>> MACHINE_SHIFT) & 0xFF;
    }

    /** The domain, bits 47-40 (see the {@code DOMAIN_} constants). */
    public static int domain(long axis) {
        return (int) (axis >>> DOMAIN_SHIFT) & 0xFF;
    }

    /** The raw 40-bit ordinal; its meaning depends on the domain. */
    public static long ordinal(long axis) {
        return axis & ORDINAL_MASK;
    }

    /** The device index of a queue-domain axis (meaningless for other domains). */
    public static int deviceIndex(long axis) {
        return (int) (axis >>> DEVICE_SHIFT) & 0xFF;
    }

    /** The queue index of a queue-domain axis (meaningless for other domains). */
    public static int queueIndex(long axis) {
        return (int) (axis >>> QUEUE_SHIFT) & 0xFF;
    }

    /** Whether {@code axis} has a known domain and, in the queue domain, zero reserved bits. */
    public static boolean isValid(long axis) {
        int domain = domain(axis);
        return domain <= DOMAIN_HOST && (domain != DOMAIN_QUEUE || (axis & QUEUE_RESERVED_MASK) == 0);
    }

    /**
     * Returns {@code axis} if it is {@linkplain #isValid valid}.
     *
     * @throws StatusException INVALID_ARGUMENT naming the axis in hex and what is wrong with it
     */
    public static long validate(long axis) {
        if (!isValid(axis)) {
            String what = domain(axis) > DOMAIN_HOST
                    ? "unknown domain " + domain(axis)
                    : "reserved queue ordinal bits 0x" + Long.toHexString(axis & QUEUE_RESERVED_MASK) + " set";
            throw new StatusException(StatusCode.INVALID_ARGUMENT,
                    "axis 0x" + hex(axis) + " is invalid: " + what);
        }
        return axis;
    }

    /**
     * The text form of {@code axis}, e.g. {@code q0.1} or {@code s1.m3.c42}; invalid axes print
     * in the raw {@code 0x<hex>} form. {@link #parse} reads either back.
     */
    public static String toString(long axis) {
        StringBuilder text = new StringBuilder(16);
        appendTo(text, axis);
        return text.toString();
    }

    static void appendTo(StringBuilder text, long axis) {
        if (!isValid(axis)) {
            text.append("0x").append(hex(axis));
            return;
        }
        if (session(axis) != 0) {
            text.append('s').append(session(axis)).append('.');
        }
        if (machine(axis) != 0) {
            text.append('m').append(machine(axis)).append('.');
        }
        int domain = domain(axis);
        text.append(DOMAIN_LETTERS[domain]);
        if (domain == DOMAIN_QUEUE) {
            text.append(deviceIndex(axis)).append('.').append(queueIndex(axis));
        } else {
            text.append(ordinal(axis));
        }
    }

    /**
     * Parses the text form written by {@link #toString(long)}.
     *
     * @throws StatusException INVALID_ARGUMENT naming the text if it is malformed or names an
     *     invalid axis; OUT_OF_RANGE if a component exceeds its bits
     */
    public static long parse(String text) {
        if (text == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "axis text is null");
        }
        if (text.startsWith("0x") || text.startsWith("0X")) {
            String digits = text.substring(2);
            if (digits.isEmpty() || digits.length() > 16 || !digits.chars().allMatch(c -> Character.digit(c, 16) >= 0)) {
                throw malformed(text, "expected 1 to 16 hex digits after 0x");
            }
            return validate(Long.parseUnsignedLong(digits, 16));
        }
        String[] parts = text.split("\\.", -1);
        int index = 0;
        int session = 0;
        int machine = 0;
        if (index < parts.length && parts[index].startsWith("s")) {
            session = (int) number(text, parts[index++], 1, 255, "session epoch");
        }
        if (index < parts.length && parts[index].startsWith("m")) {
            machine = (int) number(text, parts[index++], 1, 255, "machine index");
        }
        if (index >= parts.length || parts[index].isEmpty()) {
            throw malformed(text, "expected q<device>.<queue>, c<channel>, h<context> or e<ordinal>");
        }
        String head = parts[index++];
        long axis = switch (head.charAt(0)) {
            case 'q' -> {
                if (index >= parts.length) {
                    throw malformed(text, "a queue axis is q<device>.<queue>");
                }
                int device = (int) number(text, head, 1, 255, "device index");
                int queue = (int) number(text, parts[index++], 0, 255, "queue index");
                yield queue(session, machine, device, queue);
            }
            case 'c' -> collective(session, machine, number(text, head, 1, ORDINAL_MASK, "channel id"));
            case 'h' -> host(session, machine, number(text, head, 1, ORDINAL_MASK, "context id"));
            case 'e' -> make(session, machine, DOMAIN_EPILOGUE, number(text, head, 1, ORDINAL_MASK, "ordinal"));
            default -> throw malformed(text, "unknown domain letter '" + head.charAt(0) + "'");
        };
        if (index != parts.length) {
            throw malformed(text, "unexpected trailing '." + parts[index] + "'");
        }
        return axis;
    }

    /** Parses the decimal number in {@code part} after its {@code skip} leading letters. */
    private static long number(String text, String part, int skip, long max, String what) {
        String digits = part.substring(skip);
        if (digits.isEmpty() || digits.length() > 19 || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
            throw malformed(text, "expected a decimal " + what + " in '" + part + "'");
        }
        long value = Long.parseLong(digits);
        if (value > max) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "axis '" + text + "': " + what + " " + value + " exceeds " + max);
        }
        return value;
    }

    private static void checkByte(String what, int value) {
        if (value < 0 || value > 255) {
            throw new StatusException(StatusCode.OUT_OF_RANGE,
                    "axis " + what + " " + value + " is outside [0, 255]");
        }
    }

    private static StatusException malformed(String text, String why) {
        return new StatusException(StatusCode.INVALID_ARGUMENT, "malformed axis '" + text + "': " + why);
    }

    private static String hex(long axis) {
        String digits = Long.toHexString(axis).toUpperCase(Locale.ROOT);
        return "0".repeat(16 - digits.length()) + digits;
    }
}
