// float_cores_top: every function of codegen/fpga/rtl/dcw_float32.vh as a combinational output, so
// that float_cores_tb.cpp can compare them with native x86 float arithmetic (check_float_cores.sh).
module float_cores_top (
    input  wire [31:0] a,
    input  wire [31:0] b,
    input  wire [63:0] x,
    output wire [31:0] add_o,
    output wire [31:0] sub_o,
    output wire [31:0] mul_o,
    output wire        lt_o,
    output wire        le_o,
    output wire        eq_o,
    output wire        gt_o,
    output wire        ge_o,
    output wire [31:0] i2f_o,
    output wire [63:0] f2i_o
);
`include "dcw_float32.vh"

    assign add_o = dcw_fadd32(a, b);
    assign sub_o = dcw_fsub32(a, b);
    assign mul_o = dcw_fmul32(a, b);
    assign lt_o  = dcw_flt32(a, b);
    assign le_o  = dcw_fle32(a, b);
    assign eq_o  = dcw_feq32(a, b);
    assign gt_o  = dcw_fgt32(a, b);
    assign ge_o  = dcw_fge32(a, b);
    assign i2f_o = dcw_fi64_to_f32(x);
    assign f2i_o = dcw_ff32_to_i64(a);
endmodule
