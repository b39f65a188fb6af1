/**
 * A `deno lint` plugin (deno.json `lint.plugins`) with one rule, `stacksync/log-message`: the
 * message of a log call is a LogTape template, so it must not be built from data. A file name
 * such as `IMG_{1}.jpg` in it would be read as a placeholder and logged as `IMG_undefined.jpg`.
 *
 * A message passes when it is a string literal, a template literal without `${…}`, a `+` or
 * `?:` of such, a constant (an `UPPER_CASE` name), or `literal(…)` from `src/log.ts`. Calls on
 * `console` are not log calls; a tagged template (``log.info`…` ``) is safe and not checked.
 *
 * @module
 */

/** The methods of a LogTape logger that take a message first. */
const LEVELS = new Set(["trace", "debug", "info", "warn", "warning", "error", "fatal"]);

/** A constant by the house's naming: `LOG_FILE_FALLBACK`. */
const CONSTANT = /^[A-Z][A-Z0-9_]*$/;

/** Whether a message expression is a fixed template or an escaped text. */
function isConstant(node: Deno.lint.Expression): boolean {
  switch (node.type) {
    case "Literal":
      return typeof node.value === "string";
    case "TemplateLiteral":
      return node.expressions.length === 0;
    case "BinaryExpression":
      return node.operator === "+" && node.left.type !== "PrivateIdentifier" &&
        isConstant(node.left) && isConstant(node.right);
    case "ConditionalExpression":
      return isConstant(node.consequent) && isConstant(node.alternate);
    case "Identifier":
      return CONSTANT.test(node.name);
    case "CallExpression":
      return node.callee.type === "Identifier" && node.callee.name === "literal";
    default:
      return false;
  }
}

/** The plugin: deno.json names this file in `lint.plugins`. */
const plugin: Deno.lint.Plugin = {
  name: "stacksync",
  rules: {
    "log-message": {
      create(context) {
        return {
          CallExpression(node) {
            const { callee } = node;
            if (callee.type !== "MemberExpression" || callee.property.type !== "Identifier") return;
            if (!LEVELS.has(callee.property.name)) return;
            if (callee.object.type === "Identifier" && callee.object.name === "console") return;
            const message = node.arguments[0];
            if (message === undefined || message.type === "SpreadElement") return;
            if (isConstant(message)) return;
            context.report({
              node: message,
              message: "Log message built from data: LogTape reads {…} in it as placeholders",
              hint: 'Pass a constant template with the data as properties, log.info("Left stack ' +
                '{stackID}", { stackID }), or a finished text as literal(text) from src/log.ts',
            });
          },
        };
      },
    },
  },
};

export default plugin;
