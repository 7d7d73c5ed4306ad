import tseslint from "typescript-eslint";

export default tseslint.config(...tseslint.configs.recommended, {
  ignores: ["dist/", "out/", "node_modules/", "test/e2e/", ".code-server/"],
});
