package dev.ortho.vm;

/** Kinds of stack frames, with IREE's numbering and backtrace names. */
public enum FrameType {
    /** The host's entry into the VM. */
    EXTERNAL("external"),
    /** A native (Java) function. */
    NATIVE("native"),
    /** An interpreted bytecode function. */
    BYTECODE("bytecode"),
    /** A pending wait entered by the function below it. */
    WAIT("wait");

    private final String label;

    FrameType(String label) {
        this.label = label;
    }

    /** The name printed in backtraces. */
    public String label() {
        return label;
    }
}
