package dev.ortho.hal.remote.cts;

import dev.ortho.hal.Device;
import dev.ortho.hal.remote.Loopback;

/**
 * The asynchronous-queue conformance suite on {@code remote://} over TCP, against a loopback
 * server serving local-sync whose per-client in-flight quota (16,384) admits the suite's
 * 10,000-operation pipeline, so it runs the pipeline itself.
 */
class RemoteTcpAsyncQueueTest extends RemoteAsyncQueueSuite {
    private static final int QUOTA = 16_384;
    private static Loopback server;

    private static synchronized Loopback server() {
        if (server == null) {
            server = Loopback.start(options -> options.withQuotas(options.maxMemoryBytes(), options.maxHandles(),
                    QUOTA));
        }
        return server;
    }

    @Override
    protected Device createDevice() {
        return server().connect();
    }

    @Override
    protected int inFlightQuota() {
        return QUOTA;
    }
}
