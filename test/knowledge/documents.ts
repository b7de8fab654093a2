import { createDeflateRaw, deflateRawSync } from 'node:zlib';

/**
 * Documents made by the import tests at run time: tiny hand-written PDFs (one text line per
 * page with a standard font, or a page holding only an image: a scan without a text layer) and
 * ZIP archives (DOCX zip bombs, archives whose central directory lies about the sizes).
 */

function assemble(objects: string[]): Buffer {
  let out = '%PDF-1.4\n';
  const offsets: number[] = [];
  objects.forEach((object, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${object}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  out += offsets.map((o) => `${String(o).padStart(10, '0')} 00000 n \n`).join('');
  out += `trailer\n<< /Size ${objects.length + 1} /Root 1 0 R >>\nstartxref\n${xref}\n%%EOF\n`;
  return Buffer.from(out, 'latin1');
}

const stream = (content: string, extra = '') =>
  `<< /Length ${content.length}${extra} >>\nstream\n${content}\nendstream`;

/** A PDF whose page i shows pages[i] (ASCII, no parentheses) in Helvetica. */
export function textPdf(pages: string[]): Buffer {
  const font = 3 + pages.length * 2;
  const objects = [
    '<< /Type /Catalog /Pages 2 0 R >>',
    `<< /Type /Pages /Kids [${pages.map((_, i) => `${3 + i * 2} 0 R`).join(' ')}] /Count ${pages.length} >>`,
  ];
  pages.forEach((text, i) => {
    objects.push(
      `<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents ${4 + i * 2} 0 R /Resources << /Font << /F1 ${font} 0 R >> >> >>`,
    );
    objects.push(stream(`BT /F1 12 Tf 72 720 Td (${text}) Tj ET`));
  });
  objects.push('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>');
  return assemble(objects);
}

/** A one-page PDF that holds only a 2×2 grey image: what a scanner without OCR produces. */
export function scannedPdf(): Buffer {
  return assemble([
    '<< /Type /Catalog /Pages 2 0 R >>',
    '<< /Type /Pages /Kids [3 0 R] /Count 1 >>',
    '<< /Type /Page /Parent 2 0 R /MediaBox [0 0 612 792] /Contents 4 0 R /Resources << /XObject << /Im1 5 0 R >> >> >>',
    stream('q 200 0 0 200 72 500 cm /Im1 Do Q'),
    stream(
      '\u0080\u00ff\u00ff\u0080',
      ' /Type /XObject /Subtype /Image /Width 2 /Height 2 /ColorSpace /DeviceGray /BitsPerComponent 8',
    ),
  ]);
}

interface ZipEntry {
  name: string;
  /** Raw-deflated bytes of the part. */
  deflated: Buffer;
  /** Its unpacked size. */
  size: number;
  /** The unpacked size the central directory states (a lying archive states less). */
  declaredSize?: number;
}

/** A ZIP archive of deflated parts (CRCs left at zero: the import checks sizes, not CRCs). */
export function zip(entries: ZipEntry[]): Buffer {
  const locals: Buffer[] = [];
  const centrals: Buffer[] = [];
  let offset = 0;
  for (const entry of entries) {
    const name = Buffer.from(entry.name, 'utf8');
    const declared = entry.declaredSize ?? entry.size;
    const local = Buffer.alloc(30);
    local.writeUInt32LE(0x04034b50, 0);
    local.writeUInt16LE(20, 4);
    local.writeUInt16LE(8, 8);
    local.writeUInt32LE(entry.deflated.length, 18);
    local.writeUInt32LE(declared, 22);
    local.writeUInt16LE(name.length, 26);
    const central = Buffer.alloc(46);
    central.writeUInt32LE(0x02014b50, 0);
    central.writeUInt16LE(20, 4);
    central.writeUInt16LE(20, 6);
    central.writeUInt16LE(8, 10);
    central.writeUInt32LE(entry.deflated.length, 20);
    central.writeUInt32LE(declared, 24);
    central.writeUInt16LE(name.length, 28);
    central.writeUInt32LE(offset, 42);
    locals.push(local, name, entry.deflated);
    centrals.push(central, name);
    offset += local.length + name.length + entry.deflated.length;
  }
  const directory = Buffer.concat(centrals);
  const end = Buffer.alloc(22);
  end.writeUInt32LE(0x06054b50, 0);
  end.writeUInt16LE(entries.length, 8);
  end.writeUInt16LE(entries.length, 10);
  end.writeUInt32LE(directory.length, 12);
  end.writeUInt32LE(offset, 16);
  return Buffer.concat([...locals, directory, end]);
}

/** Raw-deflates `times` repetitions of `chunk` without holding them all in memory. */
export async function deflateRepeated(chunk: string, times: number, head = '', tail = ''): Promise<ZipEntry> {
  const deflater = createDeflateRaw({ level: 9 });
  const out: Buffer[] = [];
  deflater.on('data', (data: Buffer) => out.push(data));
  const done = new Promise((resolve, reject) => deflater.on('end', resolve).on('error', reject));
  const write = (text: string) =>
    deflater.write(text) ? Promise.resolve() : new Promise((resolve) => deflater.once('drain', resolve));
  await write(head);
  const block = chunk.repeat(Math.max(1, Math.floor((1024 * 1024) / chunk.length)));
  const perBlock = block === chunk ? 1 : Math.floor((1024 * 1024) / chunk.length);
  let written = 0;
  while (written + perBlock <= times) {
    await write(block);
    written += perBlock;
  }
  if (written < times) await write(chunk.repeat(times - written));
  await write(tail);
  deflater.end();
  await done;
  const size = Buffer.byteLength(head) + Buffer.byteLength(chunk) * times + Buffer.byteLength(tail);
  return { name: '', deflated: Buffer.concat(out), size };
}

const CONTENT_TYPES =
  '<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>';
const RELS =
  '<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>';
const BODY_HEAD =
  '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body>';
const BODY_TAIL = '</w:body></w:document>';

/**
 * A DOCX whose document.xml unpacks to about `unpackedBytes` of one paragraph repeated: a ZIP
 * bomb (a few hundred kB that unpack to tens or hundreds of MB). `lie`: the central directory
 * states 1 kB for it.
 */
export async function zipBombDocx(unpackedBytes: number, options: { lie?: boolean } = {}): Promise<Buffer> {
  const paragraph = '<w:p><w:r><w:t>Bombe Bombe Bombe Bombe Bombe Bombe Bombe Bombe</w:t></w:r></w:p>';
  const body = await deflateRepeated(
    paragraph,
    Math.ceil(unpackedBytes / paragraph.length),
    BODY_HEAD,
    BODY_TAIL,
  );
  const small = (name: string, text: string): ZipEntry => ({
    name,
    deflated: deflateRawSync(text),
    size: Buffer.byteLength(text),
  });
  return zip([
    small('[Content_Types].xml', CONTENT_TYPES),
    small('_rels/.rels', RELS),
    { ...body, name: 'word/document.xml', declaredSize: options.lie ? 1024 : body.size },
  ]);
}
