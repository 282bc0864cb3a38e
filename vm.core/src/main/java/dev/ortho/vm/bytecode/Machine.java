package dev.ortho.vm.bytecode;

import static dev.ortho.vm.bytecode.Interpreter.*;

import dev.ortho.vm.Frame;
import dev.ortho.vm.RefObject;
import dev.ortho.vm.VmBuffer;
import dev.ortho.vm.VmList;
import dev.ortho.vm.spi.ExtensionMachine;


/** The {@link ExtensionMachine} handed to extensions; cached on the entry frame of a run. Not thread-safe. */
final class Machine implements ExtensionMachine {
    BytecodeModule m;
    BytecodeModule.State st;
    byte[] c;
    int pc;
    int base;
    int[] r;
    RefObject[] refs;

    static Machine of(Frame frame) {
        if (frame.scratch() instanceof Machine cached) {
            return cached;
        }
        Machine created = new Machine();
        frame.setScratch(created);
        return created;
    }

    void bind(BytecodeModule module, BytecodeModule.State state, byte[] code, int at, int functionBase,
              int[] i32, RefObject[] refBank) {
        this.m = module;
        this.st = state;
        this.c = code;
        this.pc = at;
        this.base = functionBase;
        this.r = i32;
        this.refs = refBank;
    }

    @Override
    public int readU8() {
        return c[pc++] & 0xFF;
    }

    @Override
    public int readU16() {
        int v = u16(c, pc);
        pc += 2;
        return v;
    }

    @Override
    public int readI32() {
        int v = Interpreter.i32(c, pc);
        pc += 4;
        return v;
    }

    @Override
    public long readI64() {
        long v = Interpreter.i64(c, pc);
        pc += 8;
        return v;
    }

    @Override
    public int readListSize() {
        pc = align(pc, base);
        return readU16();
    }

    @Override
    public int i32(int reg) {
        return r[reg];
    }

    @Override
    public void setI32(int reg, int value) {
        r[reg] = value;
    }

    @Override
    public long i64(int reg) {
        return rl(r, reg);
    }

    @Override
    public void setI64(int reg, long value) {
        wl(r, reg, value);
    }

    @Override
    public RefObject ref(int ordinal) {
        return refs[ordinal & REF_MASK];
    }

    @Override
    public VmBuffer buffer(int ordinal) {
        return InterpreterOps.buffer(refs, ordinal, "buffer");
    }

    @Override
    public VmList list(int ordinal) {
        return InterpreterOps.list(refs, ordinal);
    }

    @Override
    public int globalI32(int byteOffset) {
        return (int) I32.get(st.rwdata, byteOffset);
    }

    @Override
    public void setGlobalI32(int byteOffset, int value) {
        I32.set(st.rwdata, byteOffset, value);
    }

    @Override
    public long globalI64(int byteOffset) {
        return (long) I64.get(st.rwdata, byteOffset);
    }

    @Override
    public void setGlobalI64(int byteOffset, long value) {
        I64.set(st.rwdata, byteOffset, value);
    }

    @Override
    public void checkGlobalRange(int byteOffset, int length) {
        InterpreterOps.checkGlobal(st, byteOffset, length);
    }
}
