package dev.ortho.vm;

import org.osgi.annotation.versioning.ConsumerType;

/**
 * The body of a native (Java) export, implemented by module authors with a method reference or
 * lambda and registered through {@link NativeModule.Builder#export}.
 *
 * <p>The function reads arguments from {@link NativeCall#args()} and writes results to
 * {@link NativeCall#results()} by bank slot (see {@link CallingConvention}), then returns
 * {@link CallOutcome#COMPLETED}. To yield it saves its progress in {@link NativeCall#locals()} and
 * returns {@link NativeCall#yieldNow()} or one of the wait methods; it is then called again with
 * {@link NativeCall#isResume()} true. Failures are thrown as
 * {@link dev.ortho.base.StatusException}.
 *
 * @param <S> the module's per-context state type
 */
@ConsumerType
@FunctionalInterface
public interface NativeFunction<S> {
    /** Runs or resumes the call. */
    CallOutcome call(S state, NativeCall call);
}
