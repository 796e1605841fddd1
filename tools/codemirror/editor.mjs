// The playground's editor, bundled by build.mjs into site/codemirror.js:
// CodeMirror 6 with line numbers, Markdown highlighting whose ```lua
// blocks are highlighted as Lua, YAML for the world, and one marked line
// (the error's). A prompt's YAML frontmatter is highlighted as YAML. The
// page sees only window.RunvilEditor.create(...).
import { basicSetup } from "codemirror";
import { EditorView, Decoration, keymap } from "@codemirror/view";
import { EditorState, StateEffect, StateField, Prec } from "@codemirror/state";
import { StreamLanguage, LanguageDescription, LanguageSupport } from "@codemirror/language";
import { markdown } from "@codemirror/lang-markdown";
import { lua } from "@codemirror/legacy-modes/mode/lua";
import { yaml, yamlFrontmatter } from "@codemirror/lang-yaml";

const luaLanguage = StreamLanguage.define(lua);
const codeLanguages = [
  LanguageDescription.of({ name: "lua", support: new LanguageSupport(luaLanguage) }),
  LanguageDescription.of({ name: "yaml", alias: ["yml"], support: yaml() }),
];

// the error's line: set by number (1-based), cleared by 0 or by any edit
const markLine = StateEffect.define();
const errorLine = StateField.define({
  create: () => Decoration.none,
  update(marks, tr) {
    marks = tr.docChanged ? Decoration.none : marks;
    for (const e of tr.effects) {
      if (!e.is(markLine)) continue;
      const n = e.value;
      marks = n >= 1 && n <= tr.state.doc.lines
        ? Decoration.set([Decoration.line({ class: "cm-error-line" }).range(tr.state.doc.line(n).from)])
        : Decoration.none;
    }
    return marks;
  },
  provide: (f) => EditorView.decorations.from(f),
});

const theme = EditorView.theme({
  "&": { fontSize: "13px", backgroundColor: "#fff", height: "100%" },
  ".cm-scroller": { fontFamily: "ui-monospace, Menlo, Consolas, monospace", lineHeight: "1.45" },
  ".cm-gutters": { backgroundColor: "#f3f5f7", color: "#8a96a3", borderRight: "1px solid #e1e5ea" },
  ".cm-error-line": { backgroundColor: "#ffe3e3", boxShadow: "inset 3px 0 0 #d64545" },
});

/** An editor in `parent`: {language: "markdown" | "yaml", doc, onRun}.
 * Returns {view, getText(), setText(text), mark(line)}. */
function create(parent, { language, doc = "", onRun = () => {} }) {
  const run = () => { onRun(); return true; };
  const view = new EditorView({
    parent,
    state: EditorState.create({
      doc,
      extensions: [
        Prec.highest(keymap.of([{ key: "Mod-Enter", run }])),
        basicSetup,
        language === "yaml" ? yaml() : yamlFrontmatter({ content: markdown({ codeLanguages }) }),
        errorLine,
        theme,
        EditorView.lineWrapping,
      ],
    }),
  });
  return {
    view,
    getText: () => view.state.doc.toString(),
    setText(text) {
      view.dispatch({ changes: { from: 0, to: view.state.doc.length, insert: text } });
    },
    mark(line) {
      view.dispatch({ effects: markLine.of(line || 0) });
      if (line >= 1 && line <= view.state.doc.lines) {
        view.dispatch({ effects: EditorView.scrollIntoView(view.state.doc.line(line).from, { y: "center" }) });
      }
    },
  };
}

window.RunvilEditor = { create };
