package dev.ortho.base;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

import org.junit.jupiter.api.Test;

class MessageTextTest {
    @Test
    void printableTextIsReturnedAsItIs() {
        String text = "hal.buffer_view.create 0rrI_r ünïcödé 名前 \uD83D\uDE00";
        assertSame(text, MessageText.printable(text));
    }

    @Test
    void controlBytesAreHexEscapes() {
        assertEquals("ab\\x00c\\x0A\\x1B[31m\\x7F\\x9F", MessageText.printable("ab\0c\n\u001B[31m\u007F\u009F"));
    }

    @Test
    void backslashesAreDoubledSoEscapesStayUnambiguous() {
        assertEquals("a\\\\x00", MessageText.printable("a\\x00"));
    }

    @Test
    void nonPrintingUnicodeIsAUnicodeEscape() {
        assertEquals("\\u202Eevil\\u2028\\uFFFD\\uD800x\\uDC00\\uE000",
                MessageText.printable("\u202Eevil\u2028\uFFFD\uD800x\uDC00\uE000"));
    }

    @Test
    void nullReadsAsNull() {
        assertEquals("null", MessageText.printable(null));
    }
}
