package dev.ortho.vm.bytecode;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Call;
import dev.ortho.vm.CallOutcome;
import dev.ortho.vm.Context;
import dev.ortho.vm.Frame;
import dev.ortho.vm.FrameType;
import dev.ortho.vm.Function;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import dev.ortho.vm.Stack;
import dev.ortho.vm.internal.WaitFrames;
import dev.ortho.vm.internal.testing.YieldableTestModule;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Runs a module's exports as tests, with the semantics of IREE's VM conformance suite and
 * {@code check-module}: every export is a test taking no arguments and returning nothing; an
 * export whose name starts with {@code fail_} must fail, every other must succeed. The native
 * {@code yieldable_test} module is registered first, then the given dependencies, then the
 * module; each test runs in a fresh context, and a yielded call is resumed until it completes
 * (at most {@link #MAX_RESUMES} times; waits are performed on the calling thread).
 *
 * <p>Plain Java, stateless, thread-safe; tools and tests call {@link #run}.
 */
public final class ModuleTestRunner {
    /** Resume cap per test, as IREE's runner. */
    public static final int MAX_RESUMES = 10_000;

    private ModuleTestRunner() {
    }

    /**
     * One test's outcome.
     *
     * @param name export name
     * @param expectFailure true for {@code fail_} tests
     * @param passed whether the expectation held
     * @param status the failure the export ended with, or null if it returned OK
     * @param resumes how often the call was resumed after yielding
     */
    public record Outcome(String name, boolean expectFailure, boolean passed, StatusException status, int resumes) {
        /** {@code [ OK ] name} or {@code [FAIL] name: reason}. */
        @Override
        public String toString() {
            if (passed) {
                return "[ OK ] " + name;
            }
            return "[FAIL] " + name + ": " + (status == null ? "expected a failure but it returned OK"
                    : status.getMessage());
        }
    }

    /** All outcomes of one module. */
    public record Report(String module, List<Outcome> outcomes) {
        public Report {
            outcomes = List.copyOf(outcomes);
        }

        /** Number of tests whose expectation held. */
        public int passed() {
            return (int) outcomes.stream().filter(Outcome::passed).count();
        }

        /** Number of tests whose expectation did not hold. */
        public int failed() {
            return outcomes.size() - passed();
        }

        /** IREE-style summary line: {@code N passed, M failed}. */
        public String summary() {
            return passed() + " passed, " + failed() + " failed";
        }
    }

    /**
     * Runs every export of {@code module}.
     *
     * @param dependencies modules registered (in order) after {@code yieldable_test} and before {@code module}
     * @throws StatusException if the modules cannot be linked into a context
     */
    public static Report run(Instance instance, List<? extends Module> dependencies, Module module) {
        return run(instance, dependencies, module, export -> true);
    }

    /**
     * Runs the exports of {@code module} that {@code filter} accepts (e.g. {@code check-module}
     * skips {@code __}-prefixed and {@code $}-containing exports as IREE's tool does).
     *
     * @throws StatusException if the modules cannot be linked into a context
     */
    public static Report run(Instance instance, List<? extends Module> dependencies, Module module,
                             java.util.function.Predicate<Function> filter) {
        Objects.requireNonNull(instance, "instance");
        Objects.requireNonNull(module, "module");
        Module yieldable = YieldableTestModule.create();
        List<Outcome> outcomes = new ArrayList<>();
        for (Function export : module.exports()) {
            if (!filter.test(export)) {
                continue;
            }
            Module[] modules = new Module[dependencies.size() + 2];
            modules[0] = yieldable;
            for (int i = 0; i < dependencies.size(); i++) {
                modules[i + 1] = dependencies.get(i);
            }
            modules[modules.length - 1] = module;
            boolean expectFailure = export.name().startsWith("fail_");
            try (Context context = Context.create(instance, modules)) {
                int[] resumes = new int[1];
                StatusException status = invoke(context, export, resumes);
                outcomes.add(new Outcome(export.name(), expectFailure, (status != null) == expectFailure, status,
                        resumes[0]));
            }
        }
        return new Report(module.name(), outcomes);
    }

    /** Invokes {@code function} (no arguments, no results), resuming yields; returns its failure or null. */
    static StatusException invoke(Context context, Function function, int[] resumes) {
        Stack stack = new Stack(context);
        Frame base = stack.enter(FrameType.EXTERNAL, null, 0, 0, null);
        Call call = base.outgoing().prepare(function);
        try {
            CallOutcome outcome = function.module().beginCall(stack, call);
            while (true) {
                Frame top = stack.top();
                if (outcome == CallOutcome.COMPLETED && top == base) {
                    break;
                }
                if (top == null || top == base) {
                    throw new StatusException(StatusCode.FAILED_PRECONDITION, "unbalanced stack after yield");
                }
                if (outcome == CallOutcome.DEFERRED) {
                    if (++resumes[0] > MAX_RESUMES) {
                        throw new StatusException(StatusCode.DEADLINE_EXCEEDED, "call to "
                                + function.qualifiedName() + " still yielding after " + MAX_RESUMES + " resumes");
                    }
                    if (top.type() == FrameType.WAIT) {
                        top.setWaitStatus(WaitFrames.waitSync(top));
                    }
                }
                outcome = top.function().module().resumeCall(stack, top);
            }
            call.results().releaseRefs();
            stack.leave(base);
            return null;
        } catch (StatusException e) {
            if (stack.depth() > 0) {
                e.annotate(stack.formatBacktrace());
            }
            stack.unwind();
            return e;
        }
    }
}
