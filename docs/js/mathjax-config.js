// Formulas are written as $...$ (inline) and $$...$$ (display) in the Markdown pages.
window.MathJax = {
  tex: { inlineMath: [["$", "$"]], displayMath: [["$$", "$$"]] },
  options: { skipHtmlTags: ["script", "noscript", "style", "textarea", "pre", "code"] }
};
