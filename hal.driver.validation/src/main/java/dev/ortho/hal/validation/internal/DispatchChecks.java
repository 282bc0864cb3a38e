package dev.ortho.hal.validation.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.hal.Allocator;
import dev.ortho.hal.Buffer;
import dev.ortho.hal.BufferRef;
import dev.ortho.hal.BufferUsage;
import dev.ortho.hal.DispatchConfig;
import dev.ortho.hal.DispatchFlags;
import dev.ortho.hal.Executable;
import dev.ortho.hal.ExecutableFunctionInfo;
import dev.ortho.hal.MemoryAccess;
import dev.ortho.hal.MemoryType;
import dev.ortho.hal.spi.ForwardingExecutable;
import java.lang.foreign.MemorySegment;

/**
 * The checks of a dispatch, recorded or queued (IREE's {@code iree_hal_command_buffer_dispatch_validation}
 * plus the local executables' constant and binding count checks): executable usable, function
 * ordinal in range, workgroup size and counts within limits, indirect workgroup count buffer
 * 4-aligned and at least 12 bytes, constants a multiple of 4 bytes matching the function's count,
 * bindings matching its binding count and each usable as dispatch storage. Stateless.
 */
final class DispatchChecks {
    /** The largest workgroup count per dimension the Java dispatch ABI takes (counts are int). */
    static final long MAX_WORKGROUP_COUNT = Integer.MAX_VALUE;
    private static final long INDIRECT_PARAMETERS =
            DispatchFlags.DYNAMIC_INDIRECT_PARAMETERS | DispatchFlags.STATIC_INDIRECT_PARAMETERS;
    private static final long INDIRECT_ARGUMENTS =
            DispatchFlags.DYNAMIC_INDIRECT_ARGUMENTS | DispatchFlags.STATIC_INDIRECT_ARGUMENTS;

    private DispatchChecks() {}

    /**
     * Checks a dispatch; {@code commandBuffer} receives the indirect references (null for a queue
     * dispatch, which takes direct references only). Merges nothing: call {@link #merge} once
     * every check of the call has passed.
     *
     * @return whether any reference is indirect (then {@link #merge} has work to do)
     */
    static boolean check(String call, ValidatingDevice device, ValidatingCommandBuffer commandBuffer,
            Executable executable, int function, DispatchConfig config, MemorySegment constants,
            BufferRef[] bindings, long flags) {
        ExecutableFunctionInfo info = function(call, device, executable, function);
        Checks.requireNonNull(config, call, "config");
        boolean sizeDefault = config.workgroupSizeX() == 0 && config.workgroupSizeY() == 0
                && config.workgroupSizeZ() == 0;
        if (!sizeDefault && (config.workgroupSizeX() <= 0 || config.workgroupSizeY() <= 0
                || config.workgroupSizeZ() <= 0)) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "config.workgroupSize", "("
                    + config.workgroupSizeX() + ", " + config.workgroupSizeY() + ", " + config.workgroupSizeZ()
                    + ") must be all 0 (the function's default) or all at least 1");
        }
        if (config.dynamicLocalMemory() < 0) {
            throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "config.dynamicLocalMemory",
                    config.dynamicLocalMemory() + " bytes is negative");
        }
        boolean indirect = false;
        if ((flags & INDIRECT_PARAMETERS) != 0) {
            BufferRef count = config.workgroupCountRef();
            Checks.requireNonNull(count, call, "config.workgroupCountRef");
            if (count.offset() % 4 != 0) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "config.workgroupCountRef", "offset "
                        + count.offset() + " is not a multiple of 4 (uint32 counts)");
            }
            if (count.length() != Buffer.WHOLE_BUFFER && count.length() < Checks.WORKGROUP_COUNT_BYTES) {
                throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "config.workgroupCountRef", "length "
                        + count.length() + " is less than the " + Checks.WORKGROUP_COUNT_BYTES
                        + " bytes of three uint32 counts");
            }
            indirect |= ref(call, "config.workgroupCountRef", device, commandBuffer, count,
                    Checks.WORKGROUP_COUNT_BYTES, Allocator.COMPATIBILITY_QUEUE_DISPATCH,
                    BufferUsage.DISPATCH_INDIRECT_PARAMETERS, MemoryAccess.READ, 4);
        } else {
            count(call, "config.workgroupCountX", config.workgroupCountX());
            count(call, "config.workgroupCountY", config.workgroupCountY());
            count(call, "config.workgroupCountZ", config.workgroupCountZ());
        }
        if ((flags & DispatchFlags.CUSTOM_DIRECT_ARGUMENTS) == 0) {
            long bytes = constants == null ? 0 : constants.byteSize();
            if (bytes % 4 != 0) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "constants", bytes
                        + " bytes is not a multiple of 4");
            }
            if (bytes / 4 != info.constantCount()) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "constants", (bytes / 4)
                        + " constants given but function '" + info.name() + "' takes " + info.constantCount());
            }
        }
        int bindingCount = bindings == null ? 0 : bindings.length;
        if ((flags & INDIRECT_ARGUMENTS) != 0) {
            if (bindingCount != 1) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "bindings", bindingCount
                        + " bindings given but indirect arguments take exactly 1");
            }
            indirect |= ref(call, "bindings[0]", device, commandBuffer, bindings[0], -1,
                    Allocator.COMPATIBILITY_QUEUE_DISPATCH, BufferUsage.DISPATCH_INDIRECT_PARAMETERS,
                    MemoryAccess.READ, 4);
        } else {
            if (bindingCount != info.bindingCount()) {
                throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "bindings", bindingCount
                        + " bindings given but function '" + info.name() + "' uses " + info.bindingCount());
            }
            for (int i = 0; i < bindingCount; i++) {
                indirect |= ref(call, bindingName(i), device, commandBuffer, bindings[i], -1,
                        Allocator.COMPATIBILITY_QUEUE_DISPATCH, BufferUsage.DISPATCH_STORAGE, MemoryAccess.ANY, 0);
            }
        }
        return indirect;
    }

    /** Merges the binding-table requirements of a checked dispatch into {@code commandBuffer}. */
    static void merge(ValidatingCommandBuffer commandBuffer, DispatchConfig config, BufferRef[] bindings, long flags) {
        if ((flags & INDIRECT_PARAMETERS) != 0) {
            commandBuffer.mergeRef(config.workgroupCountRef(), Checks.WORKGROUP_COUNT_BYTES,
                    Allocator.COMPATIBILITY_QUEUE_DISPATCH, BufferUsage.DISPATCH_INDIRECT_PARAMETERS,
                    MemoryAccess.READ, 4);
        }
        if ((flags & INDIRECT_ARGUMENTS) != 0) {
            commandBuffer.mergeRef(bindings[0], -1, Allocator.COMPATIBILITY_QUEUE_DISPATCH,
                    BufferUsage.DISPATCH_INDIRECT_PARAMETERS, MemoryAccess.READ, 4);
        } else if (bindings != null) {
            for (BufferRef binding : bindings) {
                commandBuffer.mergeRef(binding, -1, Allocator.COMPATIBILITY_QUEUE_DISPATCH,
                        BufferUsage.DISPATCH_STORAGE, MemoryAccess.ANY, 0);
            }
        }
    }

    private static ExecutableFunctionInfo function(String call, ValidatingDevice device, Executable executable,
            int function) {
        if (executable instanceof ValidatingExecutable validating && validating.owner() == device) {
            validating.checkLive(call, "executable");
            validating.checkOrdinal(call, function);
            return validating.delegate().functionInfo(function);
        }
        if (executable == null) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "executable", "is null");
        }
        if (executable instanceof ForwardingExecutable foreign) {
            throw Checks.fail(StatusCode.INVALID_ARGUMENT, call, "executable", executable + " belongs to "
                    + foreign.owner() + ", not to " + device);
        }
        if (function < 0 || function >= executable.functionCount()) {
            throw Checks.fail(StatusCode.OUT_OF_RANGE, call, "function", "ordinal " + function + " is outside [0, "
                    + executable.functionCount() + ")");
        }
        return executable.functionInfo(function);
    }

    private static void count(String call, String argument, int count) {
        if (Integer.toUnsignedLong(count) > MAX_WORKGROUP_COUNT) {
            throw Checks.fail(StatusCode.OUT_OF_RANGE, call, argument, Integer.toUnsignedLong(count)
                    + " workgroups exceed the limit " + MAX_WORKGROUP_COUNT);
        }
    }

    private static boolean ref(String call, String argument, ValidatingDevice device,
            ValidatingCommandBuffer commandBuffer, BufferRef ref, long accessLength, int compatibility, int usage,
            int access, long alignment) {
        Checks.requireNonNull(ref, call, argument);
        if (ref.isIndirect() && commandBuffer != null) {
            commandBuffer.checkSlot(call, argument, ref, alignment);
            return true;
        }
        device.refs().directRef(call, argument, ref, accessLength, compatibility, usage, access,
                MemoryType.DEVICE_VISIBLE, alignment);
        return false;
    }

    /** Argument names of the first bindings, built once so the check path allocates no strings. */
    private static final String[] BINDING_NAMES = new String[64];

    static {
        for (int i = 0; i < BINDING_NAMES.length; i++) {
            BINDING_NAMES[i] = "bindings[" + i + "]";
        }
    }

    private static String bindingName(int index) {
        return index < BINDING_NAMES.length ? BINDING_NAMES[index] : "bindings[" + index + "]";
    }
}
