// LC-3 assembly for CodeMirror: a stream language (comments, strings, numbers, registers,
// opcodes, directives, labels), and the assembler's diagnostics as lint marks.
import { StreamLanguage, HighlightStyle, syntaxHighlighting } from "@codemirror/language";
import { tags } from "@lezer/highlight";

const OPCODES = new Set(
  ("ADD AND NOT LD LDI LDR LEA ST STI STR JMP JSR JSRR RET RTI TRAP HALT GETC OUT PUTS IN PUTSP " +
    "BR BRN BRZ BRP BRNZ BRNP BRZP BRNZP NOP").split(" "),
);

const lc3 = StreamLanguage.define({
  name: "lc3",
  token(stream) {
    if (stream.eatSpace()) return null;
    if (stream.match(/^;.*/)) return "comment";
    if (stream.match(/^"(?:[^"\\]|\\.)*"?/)) return "string";
    if (stream.match(/^\.[A-Za-z]+/)) return "keyword";
    if (stream.match(/^(?:#-?\d+|[xX]-?[0-9a-fA-F]+\b|[bB][01]+\b|-?\d+\b)/)) return "number";
    if (stream.match(/^[rR][0-7]\b/)) return "variableName.special";
    const word = stream.match(/^[A-Za-z_][\w]*/);
    if (word) return OPCODES.has(word[0].toUpperCase()) ? "operator" : "labelName";
    stream.next();
    return null;
  },
  languageData: { commentTokens: { line: ";" } },
});

const colours = HighlightStyle.define([
  { tag: tags.comment, color: "#6a737d", fontStyle: "italic" },
  { tag: tags.string, color: "#22863a" },
  { tag: tags.keyword, color: "#6f42c1" },
  { tag: tags.number, color: "#005cc5" },
  { tag: tags.special(tags.variableName), color: "#e36209" },
  { tag: tags.operator, color: "#d73a49", fontWeight: "bold" },
  { tag: tags.labelName, color: "#24292e" },
]);

export const lc3Language = [lc3, syntaxHighlighting(colours)];
