package dev.ortho.examples;

import dev.ortho.runtime.FunctionSignature;
import dev.ortho.runtime.OrthoRuntime;
import dev.ortho.runtime.Program;
import dev.ortho.runtime.ProgramOptions;
import dev.ortho.runtime.Tensor;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.CompletableFuture;

/**
 * The embedding API in one page (README.md, "Calling a module from Java"): loads the MLP that
 * IREE compiled ({@code models/vmfb/mlp.vmvx.vmfb}) on the {@code local-task} device, lists its
 * functions, calls it with the input of {@code models/data} and with a Java array, once
 * synchronously and once asynchronously, and checks the result against IREE's own output.
 *
 * <pre>
 * ./mvnw -q package -DskipTests -pl launcher,examples -am
 * java --add-modules jdk.incubator.vector -cp 'launcher/target/export/ortho/*:examples/target/classes' \
 *     dev.ortho.examples.RunModel [models-directory]
 * </pre>
 */
public final class RunModel {
    private RunModel() {
    }

    public static void main(String[] args) throws Exception {
        Path models = Path.of(args.length > 0 ? args[0] : "models");
        try (OrthoRuntime runtime = OrthoRuntime.create();
                Program mlp = runtime.load(models.resolve("vmfb/mlp.vmvx.vmfb"),
                        ProgramOptions.defaults().withDevice("local-task"))) {
            for (FunctionSignature function : mlp.functions()) {
                System.out.println("function " + function);
            }
            // An input from a NumPy file, the result compared with what iree-run-module wrote.
            Tensor x = Tensor.readNpy(models.resolve("data/mlp/b1/input0.npy"));
            Tensor y = mlp.call("mlp", x).get(0);
            float[] iree = Tensor.readNpy(models.resolve("data/mlp/b1/vmvx/local-task/output0.npy")).toFloatArray();
            float[] ours = y.toFloatArray();
            double worst = 0;
            for (int i = 0; i < ours.length; i++) {
                worst = Math.max(worst, Math.abs(ours[i] - iree[i]));
            }
            System.out.println("mlp(input0.npy) = " + y);
            System.out.println("max |ortho - iree| = " + worst);

            // An input from a Java array, called asynchronously: the future completes when the
            // device is done, no thread waits for it.
            float[] pixels = new float[784];
            java.util.Arrays.fill(pixels, 0.5f);
            CompletableFuture<List<Tensor>> pending = mlp.callAsync("mlp", Tensor.of(pixels, 1, 784));
            float[] probabilities = pending.get().get(0).toFloatArray();
            int best = 0;
            for (int i = 1; i < probabilities.length; i++) {
                best = probabilities[i] > probabilities[best] ? i : best;
            }
            System.out.println("mlp(0.5...) predicts class " + best + " (p = " + probabilities[best] + ")");
            if (worst > 1e-5) {
                throw new AssertionError("result differs from IREE's by " + worst);
            }
        }
    }
}
