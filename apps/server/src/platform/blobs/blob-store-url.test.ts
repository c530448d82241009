import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createBlobStore, parseBlobStoreUrl } from './index.ts';

describe('GRANARY_BLOBSTORE_URL', () => {
  it('parses the documented form', () => {
    expect(
      parseBlobStoreUrl(
        's3://artifacts?endpoint=http://127.0.0.1:9000&region=eu-west-1&forcePathStyle=true&prefix=some/prefix',
        {},
      ),
    ).toEqual({
      bucket: 'artifacts',
      endpoint: 'http://127.0.0.1:9000',
      region: 'eu-west-1',
      forcePathStyle: true,
      prefix: 'some/prefix/',
    });
  });

  it('defaults: region from AWS_REGION, else us-east-1; path style only with a custom endpoint; no prefix', () => {
    expect(parseBlobStoreUrl('s3://artifacts', {})).toEqual({
      bucket: 'artifacts',
      region: 'us-east-1',
      forcePathStyle: false,
      prefix: '',
    });
    expect(parseBlobStoreUrl('s3://artifacts', { AWS_REGION: 'ap-south-1' }).region).toBe('ap-south-1');
    expect(parseBlobStoreUrl('s3://artifacts?endpoint=https://minio.example:9000/', {})).toMatchObject({
      endpoint: 'https://minio.example:9000',
      forcePathStyle: true,
    });
    expect(
      parseBlobStoreUrl('s3://artifacts?endpoint=https://minio.example&forcePathStyle=false', {})
        .forcePathStyle,
    ).toBe(false);
    expect(parseBlobStoreUrl('s3://artifacts?prefix=/granary/', {}).prefix).toBe('granary/');
  });

  const malformed = [
    'not a url',
    'http://artifacts',
    'file:///var/blobs',
    's3://',
    's3://ab',
    's3://Artifacts',
    's3://key:secret@artifacts',
    's3://artifacts:9000',
    's3://artifacts/some/prefix',
    's3://artifacts?endpoint=ftp://host',
    's3://artifacts?endpoint=not-a-url',
    's3://artifacts?endpoint=http://user:pw@host',
    's3://artifacts?forcePathStyle=yes',
    's3://artifacts?prefix=a/../b',
    's3://artifacts?prefix=a//b',
    's3://artifacts?region=us east',
    's3://artifacts?bucket=other',
    's3://artifacts?region=a&region=b',
  ];
  for (const url of malformed) {
    it(`refuses ${url}, naming the setting`, () => {
      expect(() => parseBlobStoreUrl(url, {})).toThrow(/GRANARY_BLOBSTORE_URL/);
    });
  }

  it('never echoes credentials put in the url', () => {
    expect(() => parseBlobStoreUrl('s3://AKIAEXAMPLE:sup3rsecret@artifacts', {})).toThrow(
      expect.objectContaining({ message: expect.not.stringContaining('sup3rsecret') }),
    );
  });
});

describe('createBlobStore', () => {
  let home: string;

  beforeEach(async () => {
    home = await mkdtemp(join(tmpdir(), 'granary-blobs-create-'));
  });

  afterEach(async () => {
    await rm(home, { recursive: true, force: true });
  });

  it('makes a filesystem store without a url and an S3 store with one', async () => {
    const fs = await createBlobStore({ home });
    expect(fs.kind).toBe('filesystem');
    await fs.close();
    const s3 = await createBlobStore({
      home,
      url: 's3://artifacts?endpoint=http://127.0.0.1:9&region=us-east-1',
    });
    expect(s3.kind).toBe('s3');
    await s3.close();
  });

  it('throws on a malformed url, naming GRANARY_BLOBSTORE_URL', async () => {
    await expect(createBlobStore({ home, url: 'https://bucket' })).rejects.toThrow(/GRANARY_BLOBSTORE_URL/);
  });
});
