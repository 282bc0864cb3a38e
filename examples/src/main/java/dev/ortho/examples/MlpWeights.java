package dev.ortho.examples;

/**
 * The deterministic parameters of the MLP example (784 -> 128 -> 10) and its sample input, from
 * a fixed 64-bit linear congruential generator (Knuth's MMIX constants): value {@code k} of a
 * tensor is the top 24 bits of the generator state after {@code k + 1} steps from the tensor's
 * seed, mapped to [-1, 1) and scaled. The same numbers on every JVM, so the committed
 * {@code mlp.vmasm} can be regenerated and checked byte for byte.
 */
public final class MlpWeights {
    /** Input features. */
    public static final int IN = 784;
    /** Hidden units. */
    public static final int HIDDEN = 128;
    /** Output classes. */
    public static final int OUT = 10;

    private MlpWeights() {
    }

    /** W1, row-major {@code IN x HIDDEN} (Glorot-uniform scale). */
    public static float[] w1() {
        return uniform(0x5EED_0001L, IN * HIDDEN, (float) Math.sqrt(6.0 / (IN + HIDDEN)));
    }

    /** b1, {@code HIDDEN} values. */
    public static float[] b1() {
        return uniform(0x5EED_0002L, HIDDEN, 0.1f);
    }

    /** W2, row-major {@code HIDDEN x OUT}. */
    public static float[] w2() {
        return uniform(0x5EED_0003L, HIDDEN * OUT, (float) Math.sqrt(6.0 / (HIDDEN + OUT)));
    }

    /** b2, {@code OUT} values. */
    public static float[] b2() {
        return uniform(0x5EED_0004L, OUT, 0.1f);
    }

    /** A sample {@code 1x784} input in [0, 1) (an image-like vector); {@code seed} picks which. */
    public static float[] input(long seed) {
        float[] x = uniform(0x1A9E_0000L + seed, IN, 0.5f);
        for (int i = 0; i < x.length; i++) {
            x[i] += 0.5f;
        }
        return x;
    }

    /**
     * The plain-Java reference forward pass in double precision:
     * {@code softmax(relu(x W1 + b1) W2 + b2)}.
     */
    public static double[] reference(float[] x) {
        float[] w1 = w1();
        float[] b1 = b1();
        float[] w2 = w2();
        float[] b2 = b2();
        double[] hidden = new double[HIDDEN];
        for (int n = 0; n < HIDDEN; n++) {
            double acc = b1[n];
            for (int k = 0; k < IN; k++) {
                acc += (double) x[k] * w1[k * HIDDEN + n];
            }
            hidden[n] = Math.max(acc, 0.0);
        }
        double[] logits = new double[OUT];
        double max = Double.NEGATIVE_INFINITY;
        for (int n = 0; n < OUT; n++) {
            double acc = b2[n];
            for (int k = 0; k < HIDDEN; k++) {
                acc += hidden[k] * w2[k * OUT + n];
            }
            logits[n] = acc;
            max = Math.max(max, acc);
        }
        double sum = 0;
        for (int n = 0; n < OUT; n++) {
            logits[n] = Math.exp(logits[n] - max);
            sum += logits[n];
        }
        for (int n = 0; n < OUT; n++) {
            logits[n] /= sum;
        }
        return logits;
    }

    private static float[] uniform(long seed, int count, float scale) {
        float[] values = new float[count];
        long state = seed;
        for (int i = 0; i < count; i++) {
            state = state * 6364136223846793005L + 1442695040888963407L;
            int bits = (int) (state >>> 40); // top 24 bits
            values[i] = ((bits / (float) (1 << 23)) - 1.0f) * scale;
        }
        return values;
    }
}
