package dev.ortho.hal.cpu.internal.osgi;

import org.osgi.service.metatype.annotations.AttributeDefinition;
import org.osgi.service.metatype.annotations.ObjectClassDefinition;
import org.osgi.service.metatype.annotations.Option;

/**
 * Options of {@code local-sync} devices (ConfigAdmin PID {@code dev.ortho.hal.driver.local_sync});
 * a device URI's parameter of the same name overrides it ({@code local-sync://?vmvx_compile=off}).
 * The method doubles the underscore because DS maps a single underscore to a dot.
 */
@ObjectClassDefinition(name = "Ortho local-sync driver",
        description = "Synchronous CPU device: work runs inline on the calling thread")
@interface LocalSyncConfig {
    @AttributeDefinition(description = "How VMVX dispatch functions run: off (interpreted), lazy (compiled to JVM"
            + " bytecode once hot, on the calling thread), eager (compiled when prepared)",
            options = {@Option(value = "off"), @Option(value = "lazy"), @Option(value = "eager")})
    String vmvx__compile() default "eager";
}
