package dev.ortho.modules.io.parameters.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferParams;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.Device;
import dev.ortho.hal.DeviceCapability;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.io.parameters.ParameterArchive;
import dev.ortho.io.parameters.ParameterEntry;
import dev.ortho.io.parameters.ParameterIndex;
import dev.ortho.modules.hal.HalRefs;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.VmList;
import java.lang.foreign.MemorySegment;

/**
 * What IREE's parameter index provider does for {@code load}, {@code gather} and
 * {@code scatter}, on Ortho's HAL, one span at a time in a {@link Batch}:
 *
 * <ul>
 *   <li><b>load</b>: a data parameter whose target usage includes {@code SHARING_IMMUTABLE} (what
 *       the compiler asks for constants) is <em>imported</em>: the device wraps the mapped file
 *       range as a read-only buffer, no copy (on devices with {@code HOST_ZERO_COPY_OK}, e.g. the
 *       CPU devices, when the allocator accepts it; the buffer keeps the archive mapped). Otherwise, and for splats, a queue alloca
 *       of the span's length followed by a transfer into it.
 *   <li>transfers: a data range is imported as a read-only staging buffer (its start rounded
 *       down to 64 bytes) and copied with {@code queueCopy}, one device copy; if the device
 *       cannot use host memory in place (remote devices) or declines the import, a {@code queueUpdate} (up to 64 KiB) or a host staging buffer and a
 *       {@code queueCopy}. A splat is a {@code queueFill} when its pattern repeats every 1, 2 or 4
 *       bytes, else copies from a staging buffer of at most 1 MiB holding the pattern.
 *   <li><b>scatter</b>: only data parameters of writable archives
 *       ({@link ParameterArchive#openWritable}); the mapped range is imported as a writable
 *       buffer and the device copies into it (the device must share host memory:
 *       {@code HOST_COHERENT} imports). Splats and read-only archives are PERMISSION_DENIED, as
 *       in IREE.
 * </ul>
 *
 * Stateless.
 */
final class ParameterOps {
    /** Transfers up to this size may use {@code queueUpdate} (IREE's update limit). */
    static final long MAX_UPDATE_BYTES = 64 * 1024;
    /** Staging for 8- and 16-byte splat patterns is at most this large. */
    static final long SPLAT_CHUNK_BYTES = 1 << 20;
    private static final int STAGING_TYPE = MemoryType.HOST_LOCAL | MemoryType.DEVICE_VISIBLE;

    private ParameterOps() {
    }

    static VmList load(ParameterIndex index, Batch batch, String scope, BufferParams target, Spans spans) {
        VmList buffers = VmList.ofRefs(HalTypes.BUFFER, spans.count());
        try {
            for (int i = 0; i < spans.count(); i++) {
                Spans.Span span = spans.get(i);
                ParameterEntry entry = resolve(index, scope, span, i, MemoryAccess.READ);
                if (span.bufferOffset() != 0) {
                    throw new StatusException(StatusCode.OUT_OF_RANGE, "load span " + i + " (`" + entry.key()
                            + "`) has buffer_offset " + Long.toUnsignedString(span.bufferOffset())
                            + "; each loaded parameter is a buffer of its span's length, filled from offset 0");
                }
                Buffer buffer = null;
                if (!entry.isSplat() && BufferUsage.has(target.usage(), BufferUsage.SHARING_IMMUTABLE)) {
                    buffer = tryImport(batch.device, target, entry, span.parameterOffset(), span.length());
                }
                if (buffer == null) {
                    Buffer[] allocated = new Buffer[1];
                    batch.step((w, s) -> allocated[0] = batch.device.queueAlloca(batch.affinity, w, s, target,
                            span.length(), 0));
                    buffer = allocated[0];
                    try {
                        transferIn(batch, entry, span.parameterOffset(), buffer, 0, span.length());
                    } catch (RuntimeException e) {
                        buffer.release();
                        throw e;
                    }
                }
                buffers.pushRefMove(HalRefs.wrap(buffer));
                buffer.release();
            }
            batch.finish();
            return buffers;
        } catch (StatusException e) {
            buffers.release();
            throw batch.fail(e);
        }
    }

    static void gather(ParameterIndex index, Batch batch, String scope, Buffer target, Spans spans) {
        try {
            for (int i = 0; i < spans.count(); i++) {
                Spans.Span span = spans.get(i);
                ParameterEntry entry = resolve(index, scope, span, i, MemoryAccess.READ);
                transferIn(batch, entry, span.parameterOffset(), target, span.bufferOffset(), span.length());
            }
            batch.finish();
        } catch (StatusException e) {
            throw batch.fail(e);
        }
    }

    static void scatter(ParameterIndex index, Batch batch, Buffer source, String scope, Spans spans) {
        try {
            for (int i = 0; i < spans.count(); i++) {
                Spans.Span span = spans.get(i);
                ParameterEntry entry = resolve(index, scope, span, i, MemoryAccess.WRITE);
                transferOut(batch, source, span.bufferOffset(), entry, span.parameterOffset(), span.length());
            }
            batch.finish();
        } catch (StatusException e) {
            throw batch.fail(e);
        }
    }

    /**
     * The entry span {@code i} names, checked for {@code access} and for its range.
     *
     * @throws StatusException NOT_FOUND, PERMISSION_DENIED or OUT_OF_RANGE, naming the key
     */
    private static ParameterEntry resolve(ParameterIndex index, String scope, Spans.Span span, int i, int access) {
        ParameterEntry entry = index.lookup(scope, span.key());
        int allowed = entry.isSplat() ? MemoryAccess.READ
                : MemoryAccess.READ | (entry.archive().isWritable() ? MemoryAccess.WRITE | MemoryAccess.DISCARD : 0);
        if ((allowed & access) != access) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "parameter `" + entry.key()
                    + "` storage does not support the requested access type; parameter allows "
                    + MemoryAccess.format(allowed) + ", operation requires " + MemoryAccess.format(access));
        }
        long offset = span.parameterOffset();
        long length = span.length();
        if (offset < 0 || length < 0 || offset > entry.length() || length > entry.length() - offset) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "parameter `" + entry.key()
                    + "` range out of bounds (offset=" + Long.toUnsignedString(offset) + ", length="
                    + Long.toUnsignedString(length) + ", size=" + entry.length() + ")");
        }
        if (span.bufferOffset() < 0) {
            throw new StatusException(StatusCode.OUT_OF_RANGE, "span " + i + " (`" + entry.key()
                    + "`) buffer_offset " + Long.toUnsignedString(span.bufferOffset()) + " is out of range");
        }
        return entry;
    }

    /**
     * Whether {@code device} uses host memory in place ({@code HOST_ZERO_COPY_OK}): only then is
     * an import of the mapping a view of it. Remote devices clear the bit (their imports are
     * copies kept in sync explicitly), so they get the copying paths.
     */
    static boolean sharesHostMemory(Device device) {
        return (device.capabilities() & DeviceCapability.HOST_ZERO_COPY_OK) != 0;
    }

    /** Imports the mapped bytes of a data parameter as a read-only buffer, or null if the device declines. */
    private static Buffer tryImport(Device device, BufferParams target, ParameterEntry entry, long offset,
            long length) {
        if (!sharesHostMemory(device)) {
            return null;
        }
        MemorySegment bytes = entry.contents().asSlice(offset, length);
        if (!bytes.isNative() || bytes.address() % 64 != 0) {
            return null;
        }
        ParameterArchive archive = entry.archive();
        archive.retain();
        try {
            return device.allocator().importBuffer(new BufferParams(target.type(), MemoryAccess.READ, target.usage(),
                    target.queueAffinity(), 0), bytes, archive::release);
        } catch (StatusException declined) {
            archive.release();
            return null;
        }
    }

    /** The mapped range {@code [entry.offset + offset, +length)} rounded down to 64 bytes, as a buffer, or null. */
    private static Buffer importRange(Device device, ParameterEntry entry, long offset, long length, int access,
            int usage, long[] pad) {
        ParameterArchive archive = entry.archive();
        MemorySegment all = archive.contents();
        if (!all.isNative() || !sharesHostMemory(device)) {
            return null;
        }
        long start = entry.offset() + offset;
        long misalignment = (all.address() + start) & 63;
        if (misalignment > start) {
            return null;
        }
        MemorySegment range = all.asSlice(start - misalignment, length + misalignment);
        archive.retain();
        try {
            Buffer buffer = device.allocator().importBuffer(new BufferParams(STAGING_TYPE, access, usage, 0, 0),
                    range, archive::release);
            pad[0] = misalignment;
            return buffer;
        } catch (StatusException declined) {
            archive.release();
            return null;
        }
    }

    /** Queues the transfer of a parameter range into {@code target} at {@code targetOffset}. */
    private static void transferIn(Batch batch, ParameterEntry entry, long offset, Buffer target, long targetOffset,
            long length) {
        if (length == 0) {
            return;
        }
        if (entry.isSplat()) {
            fill(batch, entry.splatPattern(), offset, target, targetOffset, length);
            return;
        }
        Device device = batch.device;
        long[] pad = new long[1];
        Buffer staging = importRange(device, entry, offset, length, MemoryAccess.READ, BufferUsage.TRANSFER_SOURCE,
                pad);
        if (staging != null) {
            try {
                batch.step((w, s) -> device.queueCopy(batch.affinity, w, s, staging, pad[0], target, targetOffset,
                        length, 0));
            } finally {
                staging.release();
            }
            return;
        }
        MemorySegment bytes = entry.contents().asSlice(offset, length);
        if (length <= MAX_UPDATE_BYTES) {
            batch.step((w, s) -> device.queueUpdate(batch.affinity, w, s, bytes, target, targetOffset, 0));
            return;
        }
        try (Buffer hostStaging = device.allocator().allocateBuffer(new BufferParams(STAGING_TYPE, MemoryAccess.ALL,
                BufferUsage.TRANSFER_SOURCE | BufferUsage.MAPPING, 0, 0), length)) {
            hostStaging.write(0, bytes);
            batch.step((w, s) -> device.queueCopy(batch.affinity, w, s, hostStaging, 0, target, targetOffset, length,
                    0));
        }
    }

    /** Queues the copy of {@code source} bytes into a writable data parameter. */
    private static void transferOut(Batch batch, Buffer source, long sourceOffset, ParameterEntry entry, long offset,
            long length) {
        if (length == 0) {
            return;
        }
        Device device = batch.device;
        long[] pad = new long[1];
        Buffer staging = importRange(device, entry, offset, length, MemoryAccess.READ | MemoryAccess.WRITE,
                BufferUsage.TRANSFER_TARGET, pad);
        if (staging == null) {
            throw new StatusException(StatusCode.UNIMPLEMENTED, "device '" + device.info().name()
                    + "' cannot use the mapped range of parameter `" + entry.key() + "` in place (no HOST_ZERO_COPY_OK "
                    + "capability, or the import was declined), so scatter cannot write it");
        }
        try {
            if (!MemoryType.has(staging.memoryType(), MemoryType.HOST_COHERENT)) {
                throw new StatusException(StatusCode.UNIMPLEMENTED, "device '" + device.info().name()
                        + "' imports host memory as " + MemoryType.format(staging.memoryType())
                        + " (not HOST_COHERENT), so its writes would not reach parameter `" + entry.key() + "`");
            }
            batch.step((w, s) -> device.queueCopy(batch.affinity, w, s, source, sourceOffset, staging, pad[0], length,
                    0));
        } finally {
            staging.release();
        }
    }

    /** Queues a fill of {@code [targetOffset, +length)} with {@code pattern} starting at parameter byte {@code offset}. */
    private static void fill(Batch batch, byte[] pattern, long offset, Buffer target, long targetOffset, long length) {
        int n = pattern.length;
        byte[] rotated = new byte[n];
        int shift = (int) Long.remainderUnsigned(offset, n);
        for (int k = 0; k < n; k++) {
            rotated[k] = pattern[(k + shift) % n];
        }
        int period = period(rotated);
        Device device = batch.device;
        if (period <= 4) {
            int value = 0;
            for (int k = 0; k < period; k++) {
                value |= (rotated[k] & 0xFF) << (8 * k);
            }
            int bits = value;
            batch.step((w, s) -> device.queueFill(batch.affinity, w, s, target, targetOffset, length, bits, period, 0));
            return;
        }
        if (length % period != 0) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "splat span length " + length
                    + " is not a multiple of its " + period + " byte pattern");
        }
        long chunk = Math.min(length, SPLAT_CHUNK_BYTES);
        try (Buffer staging = device.allocator().allocateBuffer(new BufferParams(STAGING_TYPE, MemoryAccess.ALL,
                BufferUsage.TRANSFER_SOURCE | BufferUsage.MAPPING, 0, 0), chunk)) {
            byte[] bytes = new byte[(int) chunk];
            for (int k = 0; k < bytes.length; k++) {
                bytes[k] = rotated[k % period];
            }
            staging.write(0, MemorySegment.ofArray(bytes));
            for (long done = 0; done < length; done += chunk) {
                long from = done;
                long count = Math.min(chunk, length - done);
                batch.step((w, s) -> device.queueCopy(batch.affinity, w, s, staging, 0, target, targetOffset + from,
                        count, 0));
            }
        }
    }

    /** The smallest of 1, 2, 4, 8, 16 after which {@code pattern} repeats. */
    static int period(byte[] pattern) {
        for (int p = 1; p < pattern.length; p <<= 1) {
            boolean repeats = true;
            for (int k = p; k < pattern.length && repeats; k++) {
                repeats = pattern[k] == pattern[k - p];
            }
            if (repeats) {
                return p;
            }
        }
        return pattern.length;
    }
}
