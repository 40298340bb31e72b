"""Tiny PDFs and libraries made inside a test, for the extraction, ingestion and shelf tests.

Every PDF is drawn with reportlab's standard Helvetica, one line of text per `drawString`, flush left, so pypdf
extracts each line exactly as written (no ligatures, no stray spaces).
"""
from __future__ import annotations

from pathlib import Path


def make_pdf(path: str | Path, pages: list[str], *, font_size: int = 11) -> Path:
    """Write a PDF whose page i holds the lines of pages[i] (an empty string makes an empty page)."""
    from reportlab.lib.pagesizes import A4
    from reportlab.pdfgen import canvas

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    _, height = A4
    for text in pages:
        c.setFont("Helvetica", font_size)
        y = height - 60
        for line in text.splitlines():
            c.drawString(50, y, line)
            y -= font_size + 4
        c.showPage()
    c.save()
    return path


def make_image_only_pdf(path: str | Path) -> Path:
    """A one-page PDF holding only a raster image (a 'scan'): no text layer at all."""
    from PIL import Image
    from reportlab.lib.pagesizes import A4
    from reportlab.lib.utils import ImageReader
    from reportlab.pdfgen import canvas

    path = Path(path)
    img = Image.new("RGB", (40, 40), (200, 30, 30))
    c = canvas.Canvas(str(path), pagesize=A4, invariant=1)
    c.drawImage(ImageReader(img), 50, 500, width=200, height=200)
    c.showPage()
    c.save()
    return path


def encrypt_pdf(src: str | Path, dst: str | Path, password: str = "secret") -> Path:
    """A password-protected copy of a PDF (RC4, which pypdf writes without any crypto library)."""
    from pypdf import PdfReader, PdfWriter

    writer = PdfWriter()
    for page in PdfReader(str(src)).pages:
        writer.add_page(page)
    writer.encrypt(user_password=password, owner_password=password + "-owner", algorithm="RC4-128")
    with open(dst, "wb") as fh:
        writer.write(fh)
    return Path(dst)


# Two small chapters on unrelated topics: HashEmbedder gives questions that share their words high cosine scores.
LIGHT_PAGES = [
    "Light and Refraction\n"
    "Light travels in straight lines through a uniform medium.\n"
    "When light passes from air into water it bends at the surface.\n"
    "This bending of light is called refraction of light.",
    "A convex lens converges parallel rays of light to a focus.\n"
    "A concave lens diverges the rays of light passing through it.\n"
    "The power of a lens is measured in dioptres.",
]

ACIDS_PAGES = [
    "Acids and Bases\n"
    "Acids taste sour and turn blue litmus paper red.\n"
    "Bases taste bitter and turn red litmus paper blue.\n"
    "An acid reacts with a base to give a salt and water.",
    "Hydrochloric acid reacts with sodium hydroxide in neutralisation.\n"
    "The pH scale measures how acidic or basic a solution is.",
]

SOIL_PAGES = [
    "Soil as a Resource\n"
    "Soil is the most important renewable natural resource of a country.\n"
    "Alluvial soil is found in the northern plains and is very fertile.\n"
    "Black soil is ideal for growing cotton in the Deccan plateau.",
    "Soil erosion is caused by deforestation and overgrazing by animals.\n"
    "Terrace farming and contour ploughing prevent soil erosion.",
]


def make_library(root: str | Path) -> Path:
    """A library laid out as class-<c>/<subject>/<file>.pdf: science (light, acids) and social-science (soil)."""
    root = Path(root)
    make_pdf(root / "class-10" / "science" / "light.pdf", LIGHT_PAGES)
    make_pdf(root / "class-10" / "science" / "acids.pdf", ACIDS_PAGES)
    make_pdf(root / "class-10" / "social-science" / "soil.pdf", SOIL_PAGES)
    return root
