// The authors index's filter, shown only when JavaScript runs: hides the
// names that do not hold what is typed (case and accents ignored) and the
// letters left empty, and says how many names are left.
const box = document.querySelector(".author-filter");
if (box) {
  const input = box.querySelector("input");
  const status = box.querySelector("[role=status]");
  // As the site folds names when it files them under a letter: accents
  // dropped, and the letters no accent makes spelled out (ø as o, ß as ss).
  const spelled = { ø: "o", ł: "l", đ: "d", ð: "d", þ: "th", ß: "ss", æ: "ae", œ: "oe", ı: "i" };
  const fold = (text) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase()
    .replace(/[øłđðþßæœı]/g, (c) => spelled[c]);
  const groups = [...document.querySelectorAll(".letter-group")].map((section) => ({
    section,
    // The name as shown (`Ore, Øystein`) and as written (`Øystein Ore`).
    items: [...section.querySelectorAll("li")].map((li) => {
      const shown = li.querySelector("a").textContent;
      const [family, given] = shown.split(", ");
      return [li, fold(`${shown} ${given ?? ""} ${family}`)];
    }),
  }));
  box.hidden = false;
  input.addEventListener("input", () => {
    const query = fold(input.value.trim());
    let shown = 0;
    for (const { section, items } of groups) {
      let left = 0;
      for (const [li, name] of items) {
        li.hidden = query !== "" && !name.includes(query);
        if (!li.hidden) left += 1;
      }
      section.hidden = left === 0;
      shown += left;
    }
    status.textContent = query === "" ? "" : `${shown} ${shown === 1 ? "name" : "names"}`;
  });
}
