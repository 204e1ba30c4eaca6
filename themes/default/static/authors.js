// The authors index's filter, shown only when JavaScript runs: hides the
// names that do not hold what is typed (case and accents ignored) and the
// letters left empty, and says how many names are left.
const box = document.querySelector(".author-filter");
if (box) {
  const input = box.querySelector("input");
  const status = box.querySelector("[role=status]");
  const fold = (text) => text.normalize("NFD").replace(/\p{M}/gu, "").toLowerCase();
  const groups = [...document.querySelectorAll(".letter-group")].map((section) => ({
    section,
    items: [...section.querySelectorAll("li")].map((li) => [li, fold(li.querySelector("a").textContent)]),
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
