package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableParams;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.modules.hal.HalTypes;
import dev.ortho.vm.CallBuffer;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.NativeCall;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.ByteOrder;

/** {@code hal.devices.*}, {@code hal.executable.*}, {@code hal.channel.*} and {@code hal.ex.file.from_memory}. */
final class MiscExports {
    private static final ValueLayout.OfInt I32_LE = ValueLayout.JAVA_INT_UNALIGNED.withOrder(ByteOrder.LITTLE_ENDIAN);

    private MiscExports() {
    }

    /** {@code devices.count() -> count}, {@code 0v_i}. */
    static CallOutcome devicesCount(HalState state, NativeCall call) {
        call.results().setI32(0, state.devices.length);
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code devices.get(index) -> device or null}, {@code 0i_r}: null for an index outside the
     * device list (as IREE).
     */
    static CallOutcome devicesGet(HalState state, NativeCall call) {
        int index = call.args().i32(0);
        HalRef ref = index >= 0 && index < state.deviceRefs.length ? state.deviceRefs[index] : null;
        call.results().setRef(0, RefObject.retain(ref));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code executable.create(device, queue_affinity, format, data, constants) -> executable},
     * {@code 0rIrrr_r}: prepares {@code data} (a {@code vm.buffer}, read during the call) with the
     * device's executable cache of this context; {@code constants} is null or a {@code vm.buffer}
     * of little-endian uint32 values (INVALID_ARGUMENT if its length is not a multiple of 4).
     * NOT_FOUND for a device that is not one of the module's.
     */
    static CallOutcome executableCreate(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = Args.deref(a, 0, HalTypes.DEVICE, Device.class);
        String format = Args.string(a, 1);
        VmBuffer data = Args.vmBuffer(a, 2);
        VmBuffer constantBuffer = Args.vmBufferOrNull(a, 3);
        int[] constants = new int[0];
        if (constantBuffer != null) {
            if (constantBuffer.length() % 4 != 0) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "constant buffer data must contain 4-byte "
                        + "elements but data length is " + constantBuffer.length());
            }
            MemorySegment bytes = constantBuffer.segment();
            constants = new int[Args.toInt(constantBuffer.length() / 4, "executable constant count")];
            for (int i = 0; i < constants.length; i++) {
                constants[i] = bytes.getAtIndex(I32_LE, i);
            }
        }
        Executable executable = state.cacheFor(device).prepareExecutable(
                new ExecutableParams(format, data.segment(), constants));
        call.results().setRef(0, HalRef.adopt(HalTypes.EXECUTABLE, executable, executable));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code executable.lookup.function(executable, name) -> function}, {@code 0rr_I}: the
     * function's ordinal, for {@code command_buffer.dispatch}; NOT_FOUND for an unknown name.
     */
    static CallOutcome executableLookupFunction(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Executable executable = Args.deref(a, 0, HalTypes.EXECUTABLE, Executable.class);
        call.results().setI64(0, executable.lookupFunction(Args.string(a, 1)));
        return CallOutcome.COMPLETED;
    }

    /**
     * {@code channel.create(device, queue_affinity, flags, id, group, rank, count) -> channel},
     * {@code 0rIIrrii_r}: arguments are checked, then UNIMPLEMENTED: no Ortho device provides
     * collective channels.
     */
    static CallOutcome channelCreate(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Device device = Args.deref(a, 0, HalTypes.DEVICE, Device.class);
        Args.vmBufferOrNull(a, 1);
        Args.vmBufferOrNull(a, 2);
        throw new StatusException(StatusCode.UNIMPLEMENTED, "device " + device
                + " does not support collective channels");
    }

    /**
     * {@code channel.split(channel, color, key, flags) -> channel}, {@code 0riiI_r}. Since no
     * channel can be created, only reachable with a channel from elsewhere: UNIMPLEMENTED.
     */
    static CallOutcome channelSplit(HalState state, NativeCall call) {
        Args.deref(call.args(), 0, HalTypes.CHANNEL, Object.class);
        throw new StatusException(StatusCode.UNIMPLEMENTED, "collective channels are not supported");
    }

    /** {@code channel.rank_and_count(channel) -> (rank, count)}, {@code 0r_ii}: as {@link #channelSplit}. */
    static CallOutcome channelRankAndCount(HalState state, NativeCall call) {
        Args.deref(call.args(), 0, HalTypes.CHANNEL, Object.class);
        throw new StatusException(StatusCode.UNIMPLEMENTED, "collective channels are not supported");
    }

    /**
     * {@code ex.file.from_memory(device, queue_affinity, access, buffer, offset, length, flags) ->
     * file}, {@code 0rIirIIi_r}: a read-only file over {@code [offset, offset + length)} of the
     * {@code vm.buffer} (kept alive by the file). PERMISSION_DENIED for access other than READ,
     * OUT_OF_RANGE for a range outside the buffer.
     */
    static CallOutcome fileFromMemory(HalState state, NativeCall call) {
        CallBuffer a = call.args();
        Args.deref(a, 0, HalTypes.DEVICE, Device.class);
        int access = a.i32(1);
        VmBuffer buffer = Args.vmBuffer(a, 1);
        if ((access & ~MemoryAccess.READ) != 0) {
            throw new StatusException(StatusCode.PERMISSION_DENIED, "only read-only memory can be accessed via a "
                    + "file handle (access " + MemoryAccess.format(access) + ")");
        }
        MemorySegment contents = Args.range(buffer, a.i64(2), a.i64(3), "file");
        MemoryFile file = new MemoryFile(buffer, contents.asReadOnly());
        call.results().setRef(0, HalRef.retain(HalTypes.FILE, file, buffer));
        return CallOutcome.COMPLETED;
    }
}
