//! A page script that draws a square canvas of pseudo-random pixels: its PNG screenshot
//! does not compress, so its size is known in advance (about 3 bytes per pixel, 4/3 more
//! in base64). Shared by both transports' screenshot tests.

/// Side of the canvas: 2 600² pixels give a screenshot message of about 27 MB, far above
/// tungstenite's default 16 MiB frame cap.
pub const SIDE: u32 = 2600;

/// The expression for `Runtime.evaluate`; it returns the number of pixels drawn.
pub fn draw_noise_canvas() -> String {
    format!(
        "(() => {{
            document.body.style.margin = '0';
            const c = document.createElement('canvas');
            c.width = c.height = {SIDE};
            document.body.appendChild(c);
            const ctx = c.getContext('2d');
            const img = ctx.createImageData({SIDE}, {SIDE});
            let x = 0x9e3779b9;
            for (let i = 0; i < img.data.length; i++) {{
                x ^= x << 13; x ^= x >>> 17; x ^= x << 5;
                img.data[i] = (i & 3) === 3 ? 255 : x & 255;
            }}
            ctx.putImageData(img, 0, 0);
            return c.width * c.height;
        }})()"
    )
}

/// `Page.captureScreenshot` params for the whole canvas.
pub fn capture_params() -> serde_json::Value {
    serde_json::json!({"format": "png", "captureBeyondViewport": true,
        "clip": {"x": 0, "y": 0, "width": SIDE, "height": SIDE, "scale": 1}})
}

/// Checks a capture's result: PNG data in base64, larger than 16 MiB.
pub fn assert_big_png(result: &serde_json::Value) {
    let data = result["data"].as_str().expect("base64 image data");
    assert!(data.len() > 16 << 20, "only {} bytes", data.len());
    assert!(data.starts_with("iVBORw0KGgo"), "a PNG: {}", &data[..16]);
}
