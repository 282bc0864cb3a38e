package dev.ortho.runtime;

import java.util.List;
import java.util.Map;

/**
 * An exported function of a {@link Program} as a caller sees it: its name, IREE calling
 * convention, the argument and result kinds a caller passes and gets ({@code i32}, {@code i64},
 * {@code f32}, {@code f64} for primitives, which travel as rank-0 {@link Tensor}s; {@code ref}
 * for tensors, passed as {@code hal.buffer_view}s), and its reflection attributes. For functions
 * with IREE's {@code iree.abi.model=coarse-fences} ABI the trailing wait and signal fences are
 * not listed among the inputs: the program appends them itself. Immutable; thread-safe.
 *
 * @param name the export name ({@code mlp})
 * @param cconv IREE's calling convention string ({@code 0r_r})
 * @param inputs what a caller passes, in order
 * @param results what a call returns, in order
 * @param coarseFences whether the function takes IREE's coarse-fences (asynchronous) ABI
 * @param attributes the reflection attributes ({@code iree.abi.declaration}, …)
 */
public record FunctionSignature(String name, String cconv, List<String> inputs, List<String> results,
        boolean coarseFences, Map<String, String> attributes) {

    /** Copies the lists and the map. */
    public FunctionSignature {
        inputs = List.copyOf(inputs);
        results = List.copyOf(results);
        attributes = Map.copyOf(attributes);
    }

    /**
     * The compiler's declaration ({@code sync func @mlp(%input0: tensor<1x784xf32>) -> …}), or
     * null when the module carries none (hand-written VMASM).
     */
    public String declaration() {
        return attributes.get("iree.abi.declaration");
    }

    /** {@code name(inputs) -> (results)}, then the declaration if any. */
    @Override
    public String toString() {
        String text = name + "(" + String.join(", ", inputs) + ") -> (" + String.join(", ", results) + ")";
        return declaration() == null ? text : text + "  // " + declaration();
    }
}
