"""Corpus programs whose ember record still differs from JAX's, each with the reason: a bug to fix
(the test xfails, and fails once the program matches, so the entry must then go) or a decision
recorded in docs/differences.md."""

KNOWN: dict[str, str] = {
    # autodiff / compositions / control_flow (transforms/linearize.py, custom.py, control flow)
    "pytrees::tree_flatten_leaves_and_treedef_str":
        "str(treedef) is optree's 'PyTreeSpec({...})'; JAX prints 'PyTreeDef({...})' "
        "(ember/pytree/__init__.py)",
    "pytrees::tree_leaves_none_is_empty":
        "str(treedef) says 'PyTreeSpec([None, ...])' where JAX says 'PyTreeDef([None, ...])' "
        "(ember/pytree/__init__.py)",
    "pytrees::treedef_children_and_equality":
        "str of treedef.children() is 'PyTreeSpec((*, *))'; JAX 'PyTreeDef((*, *))' "
        "(ember/pytree/__init__.py)",
    "pytrees::tree_structure_of_leaf_and_arrays":
        "treedef str: 'PyTreeSpec(*)' and 'PyTreeSpec(Point(x=*, y=*))' where JAX prints "
        "'PyTreeDef(*)' and 'PyTreeDef(CustomNode(namedtuple[Point], [*, *]))' "
        "(ember/pytree/__init__.py)",
    "pytrees::namedtuple_paths_and_treedef":
        "namedtuple treedef str 'PyTreeSpec(Point(x=*, y=(*, *)))'; JAX "
        "'PyTreeDef(CustomNode(namedtuple[Point], [*, (*, *)]))' (ember/pytree/__init__.py)",
    "pytrees::ordered_dict_keeps_insertion_order":
        "OrderedDict treedef str \"PyTreeSpec(OrderedDict({'z': *, 'a': *}))\"; JAX "
        "\"PyTreeDef(CustomNode(OrderedDict[('z', 'a')], [*, *]))\" (ember/pytree/__init__.py)",
    "pytrees::defaultdict_sorted_and_type":
        "defaultdict: values and sorted leaves match; its treedef str is "
        "\"PyTreeSpec(defaultdict(<class 'list'>, {...}))\" where JAX prints "
        "\"PyTreeDef(CustomNode(defaultdict[(<class 'list'>, ('a', 'b'))], [*, *]))\" "
        "(ember/pytree/__init__.py)",
    "pytrees::treedef_str_of_custom_nodes":
        "registered classes print as optree's 'PyTreeSpec(CustomTreeNode(Box[lbl], [*]))'-style "
        "text; JAX prints 'PyTreeDef(CustomNode(Box[lbl], [*]))', dataclasses with their static "
        "fields as \"CustomNode(Params[('d',)], [*, *])\" (ember/pytree/__init__.py)",
    "errors::jnp_function_axis_out_of_range":
        "decision (docs/differences.md): ember raises NumPy's AxisError (a ValueError and an "
        "IndexError) where JAX raises ValueError; the message is the same",
    "numpy_edge::reductions_axis_out_of_range_error":
        "decision (docs/differences.md): NumPy's AxisError where JAX raises ValueError, as "
        "errors::jnp_function_axis_out_of_range",
    "numpy_edge::astype_float_to_float16_overflow":
        "values match; jnp.float16(70000.0) warns 'overflow encountered in cast' once where JAX "
        "warns twice (JAX converts the Python value to float16 twice, ember once)",
    "lax_edge::grad_clamp_scalar_min_array_operand":
        "decision: JAX 0.10.2's clamp JVP does not broadcast a scalar min and raises TypeError "
        "'select cases must have the same shapes'; ember returns the gradient (0.0)",
    "lax_edge::grad_pad_wrt_padding_value_only":
        "decision: JAX 0.10.2's pad transpose fails (TypeError) when only the padding value is "
        "differentiated; ember returns the gradient (3.0)",
    "linalg_fft_edge::fft_zero_dim_input":
        "decision (AxisError): fft of a 0-d array raises NumPy's AxisError where JAX raises "
        "ValueError, same message",
    "linalg_fft_edge::fft_axis_out_of_range":
        "decision (AxisError): an out-of-range fft axis raises AxisError where JAX raises "
        "ValueError, same message",
    "linalg_fft_edge::fft2_repeated_axes_error":
        "ember raises ValueError naming the repeated axes; JAX checks before normalizing, so "
        "axes=(1, -1) fails later in transpose with a TypeError (numpy/fft.py)",
    "linalg_fft_edge::pinv_1d_error":
        "both raise ValueError for pinv of a 1-D array; the messages differ (JAX: 'not enough "
        "values to unpack')",
    "linalg_fft_edge::svd_grad_degenerate_and_singular":
        "gradient of an SVD reconstruction at a singular matrix: JAX gives nan, ember finite "
        "values (ember masks 1/s at s = 0 throughout; primitives/spectral.py _svd_jvp)",
    "jit_api::pytree_arguments_and_outputs_keep_dict_order":
        "values and key order match; str(treedef) is optree's 'PyTreeSpec(({...}, [*, (*,)]))' "
        "where JAX prints 'PyTreeDef(...)' (ember/pytree/__init__.py)",
    "jit_api::lowered_public_attributes":
        "decision (docs/differences.md, pytrees): Lowered.out_tree/in_tree print as optree's "
        "'PyTreeSpec(...)' where JAX prints 'PyTreeDef(...)'; out_info, in_avals and args_info "
        "match",
    "jit_api::lowered_out_info_of_static_and_keyword_args":
        "decision (docs/differences.md, pytrees): Lowered.out_tree prints 'PyTreeSpec(*)' where "
        "JAX prints 'PyTreeDef(*)'",
    "random_api::typed_key_in_jaxpr":
        "decision (docs/differences.md, typed keys): a typed key traces as its uint32[2] data "
        "and split as a jit of threefry2x32; JAX prints a:key<fry>[] and random_split[shape=(2,)]",
    "error_messages::lax_reshape_to_incompatible_size":
        "decision (docs/differences.md): lax.reshape to a shape of another size raises TypeError "
        "'cannot reshape array of shape (6,) (size 6) into shape (4, 2) (size 8)' when traced; "
        "JAX 0.10.2 lets it reach the compiler (ValueError with the MLIR verifier's text)",
    "error_messages::jit_out_shardings_single_device_not_a_prefix":
        "not fixed yet: on one device, with no mesh in the shardings, ember's jit does not match "
        "out_shardings/in_shardings against the output/argument trees (its dispatch path in "
        "transforms/jit.py skips them) and returns; JAX raises ValueError 'Mismatch details'. "
        "With a mesh ember raises JAX's message (error_messages::jit_out_shardings_not_a_prefix)",
    "export_ffi::export_with_symbolic_shape":
        "decision (docs/differences.md, export): no shape polymorphism; ShapeDtypeStruct refuses "
        "symbolic dimensions with NotImplementedError (ember/export/_shape_poly.py)",
    "missing_names::flatten_one_level_with_keys_of_a_namedtuple":
        "decision (docs/differences.md, pytrees): jaxlib 0.10.2 names every namedtuple child "
        "after the first field (GetAttrKey('x') twice); ember gives each child its own field "
        "(ember/pytree/one_level.py)",
}
