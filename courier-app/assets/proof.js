// The proof form: photos from the camera resized on the phone before they
// are sent (a camera's photo is several megabytes; 1600 px JPEGs are a tenth
// of that), a signature drawn with a finger and sent as a PNG, a barcode read
// with the browser's BarcodeDetector where it has one, and "left at the
// door" hiding what it makes unnecessary.
const LONGEST_SIDE = 1600;
const QUALITY = 0.85;

let signed = false;

export function setUpProof(form) {
  // A refusal stays until the courier changes the form: then it is old news.
  const settled = () => {
    document.getElementById("proof-error")?.remove();
    const status = form.querySelector(".form-status.refused");
    if (status) status.hidden = true;
  };
  form.addEventListener("change", settled);
  form.addEventListener("input", settled);
  const photos = form.querySelector("#photos");
  const count = form.querySelector("#photo-count");
  const previews = form.querySelector("#photo-previews");
  photos?.addEventListener("change", () => {
    const files = [...photos.files];
    count.textContent = files.length ? `${files.length} ${files.length === 1 ? "photo" : "photos"} taken.` : "No photo yet.";
    previews.replaceChildren(...files.map((file) => {
      const image = document.createElement("img");
      image.alt = "";
      image.src = URL.createObjectURL(file);
      return image;
    }));
  });

  const canvas = form.querySelector("#signature");
  if (canvas) signaturePad(canvas, form.querySelector("#signature-clear"));

  const atDoor = form.querySelector("#left_at_door");
  atDoor?.addEventListener("change", () => {
    form.querySelectorAll("[data-skip-at-door]").forEach((part) => { part.hidden = atDoor.checked; });
  });

  const scan = form.querySelector("#barcode-scan");
  const scanPhoto = form.querySelector("#barcode-photo");
  if (scan && scanPhoto && "BarcodeDetector" in window) {
    scan.hidden = false;
    scanPhoto.hidden = false;
    scanPhoto.addEventListener("change", async () => {
      const field = form.querySelector("#barcode");
      try {
        const found = await new BarcodeDetector().detect(await createImageBitmap(scanPhoto.files[0]));
        if (found.length) field.value = found[0].rawValue;
        else field.placeholder = "No barcode found: type it";
      } catch {
        field.placeholder = "Could not read it: type it";
      }
    });
  }
}

function signaturePad(canvas, clear) {
  const context = canvas.getContext("2d");
  const size = () => {
    const ratio = window.devicePixelRatio || 1;
    canvas.width = Math.round(canvas.clientWidth * ratio);
    canvas.height = Math.round(canvas.clientHeight * ratio);
    context.fillStyle = "#fff";
    context.fillRect(0, 0, canvas.width, canvas.height);
    context.lineWidth = 3 * ratio;
    context.lineCap = "round";
    context.lineJoin = "round";
    context.strokeStyle = "#000";
    signed = false;
  };
  size();
  let drawing = false;
  const at = (event) => {
    const box = canvas.getBoundingClientRect();
    return [(event.clientX - box.left) * (canvas.width / box.width), (event.clientY - box.top) * (canvas.height / box.height)];
  };
  canvas.addEventListener("pointerdown", (event) => {
    drawing = true;
    canvas.setPointerCapture(event.pointerId);
    context.beginPath();
    context.moveTo(...at(event));
    event.preventDefault();
  });
  canvas.addEventListener("pointermove", (event) => {
    if (!drawing) return;
    context.lineTo(...at(event));
    context.stroke();
    signed = true;
  });
  const stop = () => {
    if (drawing && signed) canvas.dispatchEvent(new Event("change", { bubbles: true }));
    drawing = false;
  };
  canvas.addEventListener("pointerup", stop);
  canvas.addEventListener("pointercancel", stop);
  clear?.addEventListener("click", size);
}

function blobOf(canvas, type, quality) {
  return new Promise((resolve, reject) => canvas.toBlob((blob) => (blob ? resolve(blob) : reject(new Error("the image could not be made"))), type, quality));
}

/** A photo no longer than LONGEST_SIDE as a JPEG; the file as it is when
 * the browser cannot decode it (the core then judges it). */
async function resized(file) {
  let bitmap;
  try {
    bitmap = await createImageBitmap(file);
  } catch {
    return file;
  }
  const scale = Math.min(1, LONGEST_SIDE / Math.max(bitmap.width, bitmap.height));
  const canvas = document.createElement("canvas");
  canvas.width = Math.round(bitmap.width * scale);
  canvas.height = Math.round(bitmap.height * scale);
  canvas.getContext("2d").drawImage(bitmap, 0, 0, canvas.width, canvas.height);
  bitmap.close();
  const blob = await blobOf(canvas, "image/jpeg", QUALITY);
  const name = (file.name || "photo").replace(/\.[^.]*$/, "") + ".jpg";
  return new File([blob], name, { type: "image/jpeg" });
}

/** The form's fields as the outbox keeps them: photos resized, the
 * signature (when drawn) as a PNG. */
export async function prepareProof(form) {
  const fields = [];
  for (const [name, value] of new FormData(form)) {
    if (name === "photo") {
      if (value instanceof File && value.size > 0) fields.push(["photo", await resized(value)]);
    } else {
      fields.push([name, value]);
    }
  }
  const canvas = form.querySelector("#signature");
  const atDoor = form.querySelector("#left_at_door")?.checked;
  if (canvas && signed && !atDoor) {
    const png = await blobOf(canvas, "image/png");
    fields.push(["signature", new File([png], "signature.png", { type: "image/png" })]);
  }
  return fields;
}
