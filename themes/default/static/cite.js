// Copy buttons of the Cite block: shown only when JavaScript runs; each
// copies the text of the element named by its data-copy attribute.
document.querySelectorAll("button.copy-button").forEach((button) => {
  button.hidden = false;
  button.addEventListener("click", async () => {
    const text = document.getElementById(button.dataset.copy).textContent;
    const status = document.querySelector(".copy-status");
    try {
      await navigator.clipboard.writeText(text);
      status.textContent = "Copied to the clipboard.";
    } catch {
      status.textContent = "Copying failed: select the text and copy it.";
    }
  });
});
