package dev.ortho.hal.spi;

import dev.ortho.hal.Buffer;
import dev.ortho.hal.Event;
import dev.ortho.hal.Executable;
import java.lang.reflect.Proxy;
import java.util.concurrent.atomic.AtomicInteger;

/** Resource doubles whose retain/release calls are counted (everything else is unsupported). */
final class FakeResources {
    private FakeResources() {}

    /** A counted resource of {@code type}; {@link #references} reads its count. */
    static <T> T counted(Class<T> type, String name, long byteLength) {
        AtomicInteger references = new AtomicInteger(1);
        Object proxy = Proxy.newProxyInstance(FakeResources.class.getClassLoader(), new Class<?>[] {type, Counted.class},
                (self, method, args) -> switch (method.getName()) {
                    case "retain" -> {
                        references.incrementAndGet();
                        yield null;
                    }
                    case "release", "close" -> {
                        references.decrementAndGet();
                        yield null;
                    }
                    case "references" -> references.get();
                    case "byteLength" -> byteLength;
                    case "byteOffset" -> 0L;
                    case "toString" -> name;
                    case "hashCode" -> System.identityHashCode(self);
                    case "equals" -> self == args[0];
                    default -> throw new UnsupportedOperationException(method.getName() + " on " + name);
                });
        return type.cast(proxy);
    }

    static Buffer buffer(String name, long byteLength) {
        return counted(Buffer.class, name, byteLength);
    }

    static Event event(String name) {
        return counted(Event.class, name, 0);
    }

    static Executable executable(String name) {
        return counted(Executable.class, name, 0);
    }

    static int references(Object resource) {
        return ((Counted) resource).references();
    }

    /** Implemented by every double. */
    interface Counted {
        int references();
    }
}
