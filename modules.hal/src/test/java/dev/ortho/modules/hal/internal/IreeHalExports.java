package dev.ortho.modules.hal.internal;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * IREE's {@code hal} module export table (runtime/src/iree/modules/hal/exports.inl, module version
 * 7): name and calling convention of every export, in IREE's order. Facts the module must match.
 */
final class IreeHalExports {
    private IreeHalExports() {
    }

    private static final String TABLE = """
            allocator.allocate 0rIiiI_r
            allocator.import 0riIiirII_r
            allocator.select 0iiICrID_rI
            buffer.allocation.discard 0r_i
            buffer.allocation.is_terminal 0r_i
            buffer.allocation.preserve 0r_v
            buffer.assert 0rrrIii_v
            buffer.length 0r_I
            buffer.load 0rIi_i
            buffer.store 0irIi_v
            buffer.subspan 0rII_r
            buffer_view.assert 0rriiCID_v
            buffer_view.buffer 0r_r
            buffer_view.create 0rIIiiCID_r
            buffer_view.dim 0ri_I
            buffer_view.element_type 0r_i
            buffer_view.encoding_type 0r_i
            buffer_view.rank 0r_i
            buffer_view.trace 0rCrD_v
            channel.create 0rIIrrii_r
            channel.rank_and_count 0r_ii
            channel.split 0riiI_r
            command_buffer.advise_buffer 0rrIIIi_v
            command_buffer.begin_debug_group 0rr_v
            command_buffer.collective 0rriiiirrIIIII_v
            command_buffer.copy_buffer 0riirIrIII_v
            command_buffer.create 0riiIi_r
            command_buffer.dispatch 0rrIiiiICiDCiirIID_v
            command_buffer.dispatch.indirect 0rrIirIICiDCiirIID_v
            command_buffer.end_debug_group 0r_v
            command_buffer.execution_barrier 0riiI_v
            command_buffer.fill_buffer 0rrIIiIiI_v
            command_buffer.finalize 0r_v
            command_buffer.update_buffer 0rrIrIIiI_v
            device.allocator 0r_r
            device.query.i64 0rrr_iI
            device.queue.alloca 0rIrrIiiII_r
            device.queue.barrier 0rIrrI_v
            device.queue.copy 0rIrrrIrIII_v
            device.queue.dealloca 0rIrrrI_v
            device.queue.execute 0rIrrrI_v
            device.queue.execute.indirect 0rIrrrICrIID_v
            device.queue.fill 0rIrrrIIIiI_v
            device.queue.flush 0rI_v
            device.queue.read 0rIrrrIrIII_v
            device.queue.update 0rIrrrIrIII_v
            device.queue.write 0rIrrrIrIII_v
            devices.count 0v_i
            devices.get 0i_r
            ex.file.from_memory 0rIirIIi_r
            executable.create 0rIrrr_r
            executable.lookup.function 0rr_I
            fence.await 0iICrD_i
            fence.create 0rI_r
            fence.fail 0ri_v
            fence.join 0ICrD_r
            fence.query 0r_i
            fence.signal 0r_v
            """;

    /** Export name to calling convention, in IREE's order. */
    static Map<String, String> table() {
        Map<String, String> table = new LinkedHashMap<>();
        for (String line : TABLE.strip().split("\n")) {
            String[] parts = line.strip().split(" ");
            table.put(parts[0], parts[1]);
        }
        return table;
    }
}
