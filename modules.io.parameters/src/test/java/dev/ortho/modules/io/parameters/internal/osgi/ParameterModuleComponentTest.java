package dev.ortho.modules.io.parameters.internal.osgi;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import dev.ortho.base.StatusCode;
import dev.ortho.base.StatusException;
import dev.ortho.vm.Instance;
import dev.ortho.vm.Module;
import java.lang.annotation.Annotation;
import java.net.URISyntaxException;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The DS adapter opens its configured files on first use and closes them on deactivation. */
class ParameterModuleComponentTest {
    static ParameterModuleComponent.Config config(String... parameters) {
        return new ParameterModuleComponent.Config() {
            @Override
            public String[] parameters() {
                return parameters;
            }

            @Override
            public Class<? extends Annotation> annotationType() {
                return ParameterModuleComponent.Config.class;
            }
        };
    }

    @Test
    void servesTheConfiguredFiles() throws URISyntaxException {
        Path irpa = Path.of(getClass().getResource("/dev/ortho/modules/io/parameters/linear.irpa").toURI());
        ParameterModuleComponent component = new ParameterModuleComponent(config("model=" + irpa));
        Module module = component.createModule(new Instance());
        assertEquals("io_parameters", module.name());
        assertEquals(3, module.exports().size());
        component.deactivate();
        component.deactivate(); // idempotent
    }

    @Test
    void aMissingFileFailsModuleCreationNotActivation() {
        ParameterModuleComponent component = new ParameterModuleComponent(config("model=/nonexistent/w.irpa"));
        StatusException e = assertThrows(StatusException.class, () -> component.createModule(new Instance()));
        assertSame(StatusCode.NOT_FOUND, e.code());
        component.deactivate();
    }
}
