package dev.ortho.modules.hal.internal;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.hal.Device;
import dev.ortho.modules.hal.BufferViewTraceSink;
import dev.ortho.modules.hal.HalModule;
import dev.ortho.vm.Module;
import dev.ortho.vm.NativeModule;
import dev.ortho.vm.Signal;
import java.util.List;

/**
 * Builds the {@code hal} native module: the export table (IREE's {@code exports.inl}: same names,
 * same calling conventions, same order) bound to the implementations, and the per-context
 * {@link HalState} life cycle. Signals SUSPEND and LOW_MEMORY trim every device's allocator, as
 * IREE trims its devices.
 */
public final class HalModuleFactory {
    private HalModuleFactory() {
    }

    /**
     * A new module over {@code devices} (borrowed; see {@link HalModule}).
     *
     * @throws StatusException INVALID_ARGUMENT if {@code devices} or one of them is null
     */
    public static Module build(List<? extends Device> devices, BufferViewTraceSink traceSink) {
        if (devices == null) {
            throw new StatusException(StatusCode.INVALID_ARGUMENT, "hal module device list is null");
        }
        Device[] deviceArray = devices.toArray(Device[]::new);
        for (int i = 0; i < deviceArray.length; i++) {
            if (deviceArray[i] == null) {
                throw new StatusException(StatusCode.INVALID_ARGUMENT, "hal module device " + i + " is null");
            }
        }
        AllocationPreserves preserves = new AllocationPreserves();
        return NativeModule.<HalState>builder(HalModule.NAME, HalModule.VERSION)
                .state(context -> HalState.create(deviceArray, traceSink, preserves),
                        (context, parent) -> parent.fork(), HalState::free)
                .onNotify(HalModuleFactory::notify)
                .export("allocator.allocate", "0rIiiI_r", AllocatorExports::allocate)
                .export("allocator.import", "0riIiirII_r", AllocatorExports::importBuffer)
                .export("allocator.select", "0iiICrID_rI", AllocatorExports::select)
                .export("buffer.allocation.discard", "0r_i", BufferExports::allocationDiscard)
                .export("buffer.allocation.is_terminal", "0r_i", BufferExports::allocationIsTerminal)
                .export("buffer.allocation.preserve", "0r_v", BufferExports::allocationPreserve)
                .export("buffer.assert", "0rrrIii_v", BufferExports::assertBuffer)
                .export("buffer.length", "0r_I", BufferExports::length)
                .export("buffer.load", "0rIi_i", BufferExports::load)
                .export("buffer.store", "0irIi_v", BufferExports::store)
                .export("buffer.subspan", "0rII_r", BufferExports::subspan)
                .export("buffer_view.assert", "0rriiCID_v", BufferViewExports::assertView)
                .export("buffer_view.buffer", "0r_r", BufferViewExports::buffer)
                .export("buffer_view.create", "0rIIiiCID_r", BufferViewExports::create)
                .export("buffer_view.dim", "0ri_I", BufferViewExports::dim)
                .export("buffer_view.element_type", "0r_i", BufferViewExports::elementType)
                .export("buffer_view.encoding_type", "0r_i", BufferViewExports::encodingType)
                .export("buffer_view.rank", "0r_i", BufferViewExports::rank)
                .export("buffer_view.trace", "0rCrD_v", BufferViewExports::trace)
                .export("channel.create", "0rIIrrii_r", MiscExports::channelCreate)
                .export("channel.rank_and_count", "0r_ii", MiscExports::channelRankAndCount)
                .export("channel.split", "0riiI_r", MiscExports::channelSplit)
                .export("command_buffer.advise_buffer", "0rrIIIi_v", CommandBufferExports::adviseBuffer)
                .export("command_buffer.begin_debug_group", "0rr_v", CommandBufferExports::beginDebugGroup)
                .export("command_buffer.collective", "0rriiiirrIIIII_v", CommandBufferExports::collective)
                .export("command_buffer.copy_buffer", "0riirIrIII_v", CommandBufferExports::copyBuffer)
                .export("command_buffer.create", "0riiIi_r", CommandBufferExports::create)
                .export("command_buffer.dispatch", "0rrIiiiICiDCiirIID_v", CommandBufferExports::dispatch)
                .export("command_buffer.dispatch.indirect", "0rrIirIICiDCiirIID_v",
                        CommandBufferExports::dispatchIndirect)
                .export("command_buffer.end_debug_group", "0r_v", CommandBufferExports::endDebugGroup)
                .export("command_buffer.execution_barrier", "0riiI_v", CommandBufferExports::executionBarrier)
                .export("command_buffer.fill_buffer", "0rrIIiIiI_v", CommandBufferExports::fillBuffer)
                .export("command_buffer.finalize", "0r_v", CommandBufferExports::finalizeCommandBuffer)
                .export("command_buffer.update_buffer", "0rrIrIIiI_v", CommandBufferExports::updateBuffer)
                .export("device.allocator", "0r_r", DeviceExports::allocator)
                .export("device.query.i64", "0rrr_iI", DeviceExports::queryI64)
                .export("device.queue.alloca", "0rIrrIiiII_r", DeviceExports::queueAlloca)
                .export("device.queue.barrier", "0rIrrI_v", DeviceExports::queueBarrier)
                .export("device.queue.copy", "0rIrrrIrIII_v", DeviceExports::queueCopy)
                .export("device.queue.dealloca", "0rIrrrI_v", DeviceExports::queueDealloca)
                .export("device.queue.execute", "0rIrrrI_v", DeviceExports::queueExecute)
                .export("device.queue.execute.indirect", "0rIrrrICrIID_v", DeviceExports::queueExecuteIndirect)
                .export("device.queue.fill", "0rIrrrIIIiI_v", DeviceExports::queueFill)
                .export("device.queue.flush", "0rI_v", DeviceExports::queueFlush)
                .export("device.queue.read", "0rIrrrIrIII_v", DeviceExports::queueRead)
                .export("device.queue.update", "0rIrrrIrIII_v", DeviceExports::queueUpdate)
                .export("device.queue.write", "0rIrrrIrIII_v", DeviceExports::queueWrite)
                .export("devices.count", "0v_i", MiscExports::devicesCount)
                .export("devices.get", "0i_r", MiscExports::devicesGet)
                .export("ex.file.from_memory", "0rIirIIi_r", MiscExports::fileFromMemory)
                .export("executable.create", "0rIrrr_r", MiscExports::executableCreate)
                .export("executable.lookup.function", "0rr_I", MiscExports::executableLookupFunction)
                .export("fence.await", "0iICrD_i", FenceExports::await)
                .export("fence.create", "0rI_r", FenceExports::create)
                .export("fence.fail", "0ri_v", FenceExports::fail)
                .export("fence.join", "0ICrD_r", FenceExports::join)
                .export("fence.query", "0r_i", FenceExports::query)
                .export("fence.signal", "0r_v", FenceExports::signal)
                .build();
    }

    private static void notify(HalState state, Signal signal) {
        if (signal == Signal.SUSPEND || signal == Signal.LOW_MEMORY) {
            for (Device device : state.devices) {
                device.allocator().trim();
            }
        }
    }
}
